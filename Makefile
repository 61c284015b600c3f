# probescan - count equal-length probes in FASTA/FASTQ, on the GPU or all CPU cores.
#   make            build ./probescan (with the CUDA engine when nvcc is found)
#   make demo       build and count bundled probes in the bundled E. coli genome
#   make test       unit, randomised and integration tests (GPU tests skip without a GPU)
#   make check-asan the same tests built with AddressSanitizer and UBSan
#   make bench      CPU throughput on the real genomes, beside jellyfish if installed
#   make bench-gpu  GPU kernel, ablation and end-to-end benchmarks (needs a GPU)
#   make install    PREFIX=/usr/local

VERSION  := 0.1.0
PREFIX   ?= /usr/local
CC       ?= cc
CFLAGS   ?= -O3 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -pthread -DPS_VERSION='"$(VERSION)"'
LDLIBS   += -pthread -lm
DEPS_PC  := htslib check zlib
APT_PKGS := build-essential pkg-config libhts-dev zlib1g-dev check libsubunit-dev

# CUDA: nvcc from PATH, else CUDA_HOME, else /usr/local/cuda; none means a CPU-only build.
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || { [ -x $(CUDA_HOME)/bin/nvcc ] && echo $(CUDA_HOME)/bin/nvcc; })
ifeq ($(NO_CUDA),1)
NVCC :=
endif
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += -std=c++17 -Xcompiler -Wall,-Wextra -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90 -DPS_VERSION='"$(VERSION)"'

HTS_CFLAGS = $(shell pkg-config --cflags htslib zlib 2>/dev/null)
HTS_LIBS   = $(shell pkg-config --libs htslib zlib 2>/dev/null)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

CORE_SRC := src/error.c src/alphabet.c src/pack.c src/probes.c src/automaton.c \
            src/seqio.c src/engine_cpu.c src/scan.c src/output.c
ifneq ($(NVCC),)
CUDA_LIBDIR := $(firstword $(wildcard $(dir $(NVCC))../lib64 $(dir $(NVCC))../targets/x86_64-linux/lib))
GPU_OBJ  := $(patsubst kernels/%.cu,build/kernels/%.o,$(wildcard kernels/*.cu))
GPU_LIBS := -L$(CUDA_LIBDIR) -lcudart_static -ldl -lrt -lstdc++
CFLAGS   += -DPS_HAVE_CUDA
else
GPU_OBJ  := build/src/gpu_none.o
GPU_LIBS :=
endif

CORE_OBJ := $(patsubst src/%.c,build/src/%.o,$(CORE_SRC)) $(GPU_OBJ)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(patsubst tests/%.c,build/tests/%.o,$(TEST_SRC))

.PHONY: all deps demo test check-asan bench bench-gpu install clean cuda-note FORCE

# Rebuild everything when the compiler set-up changes (CUDA on or off, sanitizer flags).
CONFIG := $(NVCC) | $(CC) $(CFLAGS)
build/config.stamp: FORCE
	@mkdir -p build
	@echo '$(CONFIG)' | cmp -s - $@ || echo '$(CONFIG)' > $@
all: deps cuda-note probescan

cuda-note:
ifeq ($(NVCC),)
	@echo "probescan: nvcc not found (PATH, CUDA_HOME): building the CPU-only tool"
endif

# Build dependencies: installed through apt when run as root, else the exact command is printed.
deps:
	@if ! pkg-config --exists $(DEPS_PC) 2>/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "probescan: installing build dependencies: $(APT_PKGS)"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PKGS) >/dev/null; } || exit 1; \
	  else \
	    echo "probescan: missing build dependencies; install them with:"; \
	    echo "  sudo apt-get install -y $(APT_PKGS)"; exit 1; \
	  fi; \
	fi

probescan: build/src/main.o $(CORE_OBJ) build/config.stamp
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(HTS_LIBS) $(GPU_LIBS) $(LDLIBS)

build/src/%.o: src/%.c build/config.stamp | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HTS_CFLAGS) -MMD -MP -c -o $@ $<

build/kernels/%.o: kernels/%.cu build/config.stamp | deps
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Isrc -MMD -MP -c -o $@ $<

build/tests/%.o: tests/%.c build/config.stamp | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HTS_CFLAGS) $(CHECK_CFLAGS) -Isrc -MMD -MP -c -o $@ $<

tests/check_probescan: $(TEST_OBJ) $(CORE_OBJ) build/config.stamp
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) $(CHECK_LIBS) $(HTS_LIBS) $(GPU_LIBS) $(LDLIBS)

# Tests look for real data in PS_DATA (default ../shared/data) and skip that part, saying so, without it.
PS_DATA ?= $(abspath ../shared/data)
export PS_DATA

test: all tests/check_probescan
	./tests/check_probescan
	PROBESCAN=./probescan bash tests/cli.sh

check-asan:
	$(MAKE) clean-objs
	$(MAKE) all tests/check_probescan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" NO_CUDA=1
	ASAN_OPTIONS=detect_leaks=1 CK_FORK=no ./tests/check_probescan
	PROBESCAN=./probescan bash tests/cli.sh
	$(MAKE) clean-objs

demo: all
	@bash fasta/demo.sh ./probescan

bench: all
	@bash bench/bench_cpu.sh ./probescan

# The kernel benchmark driver links the kernels with the probe and automaton code.
BENCH_GPU_OBJ := build/src/error.o build/src/alphabet.o build/src/pack.o build/src/probes.o \
                 build/src/automaton.o build/kernels/gpu_scan.o
build/bench/gpu_bench: bench/gpu_bench.cu $(BENCH_GPU_OBJ)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Isrc -Ikernels -o $@ $< $(BENCH_GPU_OBJ) $(HTS_LIBS) -lpthread

bench-gpu: all $(if $(NVCC),build/bench/gpu_bench)
	@bash bench/bench_gpu.sh ./probescan

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 probescan $(DESTDIR)$(PREFIX)/bin/probescan
	install -m 644 probescan.1 $(DESTDIR)$(PREFIX)/share/man/man1/probescan.1

clean-objs:
	rm -rf build probescan tests/check_probescan

clean: clean-objs

-include $(wildcard build/*/*.d build/*/*/*.d)
