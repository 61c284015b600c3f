#!/bin/bash
# Bioconda build script: the CPU build of probescan into $PREFIX, with the
# compiler and htslib from the conda environment (found through pkg-config).
set -euo pipefail
export PKG_CONFIG_PATH="${PREFIX}/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
make -j"${CPU_COUNT:-2}" NO_CUDA=1 CC="${CC:-cc}" CFLAGS="${CFLAGS:--O3} -g" probescan
make NO_CUDA=1 install PREFIX="${PREFIX}"
