# probescan - count probes, degenerate primers and PROSITE patterns in FASTA/FASTQ, on the GPU or all CPU cores.
#   make            build ./probescan (with the CUDA engine when nvcc is found); installs
#                   nothing, and names what is missing. `make NO_CUDA=1` builds the
#                   CPU-only tool (seconds; the CUDA kernels take minutes)
#   make deps       install the build and test dependencies (apt; through sudo when not root)
#   make demo       install what is missing, build, and count bundled probes in the bundled
#                   E. coli genome
#   make test       install what is missing, build, and run the unit, randomised and
#                   integration tests; ends with one line of what passed, failed and was
#                   skipped, and why (GPU and real-data checks are skipped, saying so,
#                   where there is no GPU or no data)
#                   demo, test and the checks build on every CPU unless -j is given
#   make check-gpu  only the GPU tests; fails where no GPU is usable
#   make check-asan the same tests built with AddressSanitizer and UBSan
#   make check-deb  build, lint, install and run the Debian package (root)
#   make check-bioconda  the Bioconda recipe's build script and tests
#   make bench      CPU throughput on the real genomes, beside jellyfish if installed
#   make bench-gpu  GPU kernel, ablation and end-to-end benchmarks (needs a GPU)
#   make fuzz       the profile parser and search under libFuzzer (clang), ASan and UBSan,
#                   FUZZ_SECONDS long (default 600)
#   make install    PREFIX=/usr/local

.DEFAULT_GOAL := all
VERSION  := 0.1.0
PREFIX   ?= /usr/local
CC       ?= cc
# CFLAGS is the user's (optimisation, sanitizers); what the code needs is added apart,
# so that `make CFLAGS=...` keeps it.
CFLAGS   ?= -O3 -g
PS_CFLAGS = $(CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Wextra -pthread -DPS_VERSION='"$(VERSION)"'
LDLIBS   += -pthread -lm
# What the tool needs (pkg-config module=Debian package), and what the tests add.
BUILD_DEPS := htslib=libhts-dev zlib=zlib1g-dev jansson=libjansson-dev
TEST_DEPS  := check=check
APT_PKGS   := build-essential pkg-config libhts-dev zlib1g-dev libjansson-dev libisal-dev check libsubunit-dev

# CUDA: nvcc from PATH, else CUDA_HOME, else /usr/local/cuda; none means a CPU-only build.
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || { [ -x $(CUDA_HOME)/bin/nvcc ] && echo $(CUDA_HOME)/bin/nvcc; })
ifeq ($(NO_CUDA),1)
NVCC :=
NO_CUDA_WHY := NO_CUDA=1
else
NO_CUDA_WHY := no nvcc
endif
# GPU architectures the kernels are built for (compute capability x10): machine code for
# each, and PTX of the newest, which the driver compiles for chips newer than all of them.
# A100, A10/RTX 30, L4/L40/RTX 40, H100, B200, RTX 50. `make CUDA_ARCH=90` builds one.
CUDA_ARCH ?= 80 86 89 90 100 120
CUDA_PTX  := $(lastword $(shell printf '%s\n' $(CUDA_ARCH) | sort -n))
NVCCFLAGS ?= -O3 -lineinfo
# nvcc compiles the architectures of one file on this many threads (0: one per CPU)
# rather than one after another, which took minutes.
NVCC_THREADS ?= 0
NVCCFLAGS += -std=c++17 -Xcompiler -Wall,-Wextra --threads $(NVCC_THREADS) \
             $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
             -gencode arch=compute_$(CUDA_PTX),code=compute_$(CUDA_PTX) \
             -DPS_VERSION='"$(VERSION)"' -DPS_CUDA_ARCHS='"$(PS_CUDA_ARCHS)"'

# ISA-L (Debian libisal-dev) inflates plain gzip input 2-3x faster than zlib; found by its
# header, left out with NO_ISAL=1 or where missing (zlib then, through htslib).
ifneq ($(NO_ISAL),1)
HAVE_ISAL := $(shell printf '\043include <isa-l/igzip_lib.h>\n' | $(CC) $(CPPFLAGS) -E - >/dev/null 2>&1 && echo 1)
endif
ISAL_CFLAGS := $(if $(HAVE_ISAL),-DPS_HAVE_ISAL)
ISAL_LIBS   := $(if $(HAVE_ISAL),-lisal)
HTS_CFLAGS = $(shell pkg-config --cflags htslib zlib jansson 2>/dev/null) $(ISAL_CFLAGS)
HTS_LIBS   = $(shell pkg-config --libs htslib zlib jansson 2>/dev/null) $(ISAL_LIBS)
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null)

# Where objects and binaries go: check-asan builds into its own folder.
BUILD   ?= build
BIN     ?= probescan
TESTBIN ?= tests/check_probescan

# Every source file but the program's main and the stand-in for the GPU engine.
CORE_SRC := $(filter-out src/main.c src/gpu_none.c,$(wildcard src/*.c))
# The CUDA runtime is looked for beside nvcc (also through symlinks) and under CUDA_HOME,
# in every layout toolkits use; the static one first, so that the binary needs no libcudart.so.
ifneq ($(NVCC),)
CUDA_TOPS    := $(dir $(NVCC)).. $(dir $(realpath $(NVCC))).. $(CUDA_HOME)
CUDA_LIBDIRS := $(foreach t,$(CUDA_TOPS),$(addprefix $(t)/,lib64 lib targets/x86_64-linux/lib targets/sbsa-linux/lib))
CUDART_A     := $(firstword $(wildcard $(addsuffix /libcudart_static.a,$(CUDA_LIBDIRS))))
CUDART_SO    := $(firstword $(wildcard $(addsuffix /libcudart.so,$(CUDA_LIBDIRS))))
ifneq ($(CUDART_A),)
CUDART   := $(CUDART_A)
GPU_LIBS := $(CUDART_A) -ldl -lrt -lstdc++
else ifneq ($(CUDART_SO),)
CUDART   := $(CUDART_SO)
GPU_LIBS := -L$(dir $(CUDART_SO)) -Wl,-rpath,$(dir $(CUDART_SO)) -lcudart -lstdc++
else
CUDA_MISSING := $(NVCC)
NVCC :=
NO_CUDA_WHY := no CUDA runtime library beside nvcc
endif
endif
# PS_CUDA_ARCHS: what the GPU code was built for, as the program may report it
# (e.g. "sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 compute_120"); empty without CUDA.
ifneq ($(NVCC),)
GPU_OBJ  := $(patsubst kernels/%.cu,$(BUILD)/kernels/%.o,$(wildcard kernels/*.cu))
PS_CUDA_ARCHS := $(strip $(foreach a,$(CUDA_ARCH),sm_$(a)) compute_$(CUDA_PTX))
else
GPU_OBJ  := $(BUILD)/src/gpu_none.o
GPU_LIBS :=
PS_CUDA_ARCHS :=
endif

CORE_OBJ := $(patsubst src/%.c,$(BUILD)/src/%.o,$(CORE_SRC)) $(GPU_OBJ)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(patsubst tests/%.c,$(BUILD)/tests/%.o,$(TEST_SRC))

.PHONY: all deps need-build need-test demo test check-gpu check-asan check-valgrind check-deb check-bioconda workflow-test cluster-test \
        bench bench-gpu fuzz install clean cuda-note FORCE

# Rebuild when the compiler set-up changes (sanitizer flags, ISA-L found, CUDA on or
# off, architectures): the C code on cc.stamp (what every C file sees), the files that
# say how CUDA was built (main.c, check_main.c, gpu_none.c) and the links on
# config.stamp too, the kernels on cuda.stamp alone. So `make` after `make NO_CUDA=1`
# compiles the kernels and those files, not the whole C code again, and what only the
# C code sees (ISA-L, CFLAGS) never recompiles the kernels.
CC_CONFIG   := $(CC) $(PS_CFLAGS) $(ISAL_CFLAGS)
CONFIG      := $(NVCC) $(GPU_LIBS) | $(CC_CONFIG) | $(PS_CUDA_ARCHS) | $(NO_CUDA_WHY)
CUDA_CONFIG := $(NVCC) $(NVCCFLAGS)
$(BUILD)/cc.stamp: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC_CONFIG)' | cmp -s - $@ || echo '$(CC_CONFIG)' > $@
$(BUILD)/config.stamp: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CONFIG)' | cmp -s - $@ || echo '$(CONFIG)' > $@
$(BUILD)/cuda.stamp: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CUDA_CONFIG)' | cmp -s - $@ || echo '$(CUDA_CONFIG)' > $@
# What the build says of CUDA: the architectures, or why there is none.
CUDA_SAYS := -DPS_CUDA_ARCHS='"$(PS_CUDA_ARCHS)"' -DPS_NO_CUDA_WHY='"$(NO_CUDA_WHY)"'
$(BUILD)/src/main.o $(BUILD)/src/gpu_none.o $(BUILD)/tests/check_main.o: $(BUILD)/config.stamp
$(BUILD)/src/main.o $(BUILD)/src/gpu_none.o $(BUILD)/tests/check_main.o: PS_CFLAGS += $(CUDA_SAYS)
all: cuda-note $(BIN)

cuda-note:
ifneq ($(CUDA_MISSING),)
	@echo "probescan: $(CUDA_MISSING) found but no CUDA runtime library beside it: building the CPU-only tool"
else ifeq ($(NO_CUDA),1)
	@echo "probescan: NO_CUDA=1: building the CPU-only tool"
else ifeq ($(NVCC),)
	@echo "probescan: nvcc not found (PATH, CUDA_HOME): building the CPU-only tool"
else
	@echo "probescan: building the CUDA engine with $(NVCC) and $(CUDART)"
endif

# Build and test dependencies: installed through apt when run as root, or through sudo
# (which may ask for a password) when not, so that one `make deps` serves both; where
# neither can, the exact command is printed. Only `make deps` and the targets a fresh
# checkout starts with (demo, test and the other checks) install; a plain `make` only
# says what is missing.
deps:
	@if ! command -v $(firstword $(CC)) >/dev/null || ! pkg-config --exists $(foreach d,$(BUILD_DEPS) $(TEST_DEPS),$(firstword $(subst =, ,$(d)))) 2>/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then su=; else su=sudo; fi; \
	  if command -v apt-get >/dev/null && { [ -z "$$su" ] || command -v sudo >/dev/null; }; then \
	    echo "probescan: installing build dependencies$${su:+ (through sudo)}: $(APT_PKGS)"; \
	    { $$su apt-get update -qq && $$su env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PKGS) >/dev/null; } || exit 1; \
	  else \
	    echo "probescan: missing build dependencies; install them with:"; \
	    echo "  sudo apt-get install -y $(APT_PKGS)"; exit 1; \
	  fi; \
	fi

# need-build / need-test: one line naming what is missing, and how to install it.
missing = m=; command -v $(firstword $(CC)) >/dev/null || m="$$m build-essential"; \
	command -v pkg-config >/dev/null || m="$$m pkg-config"; \
	for d in $(1); do pkg-config --exists "$${d%%=*}" 2>/dev/null || m="$$m $${d\#*=}"; done; \
	if [ -n "$$m" ]; then \
	  echo "probescan: missing$$m: install with 'make deps' (apt; through sudo when not root) or 'sudo apt-get install -y$$m'" >&2; exit 1; \
	fi
need-build:
	@$(call missing,$(BUILD_DEPS))
need-test:
	@$(call missing,$(BUILD_DEPS) $(TEST_DEPS))
# The targets that install first: deps runs before anything is checked or compiled.
ifneq ($(filter deps demo test check-gpu check-asan check-valgrind workflow-test cluster-test,$(MAKECMDGOALS)),)
need-build need-test: deps
endif

$(BIN): $(BUILD)/src/main.o $(CORE_OBJ) $(BUILD)/config.stamp
	$(CC) $(PS_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(HTS_LIBS) $(GPU_LIBS) $(LDLIBS)

$(BUILD)/src/%.o: src/%.c $(BUILD)/cc.stamp | need-build
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PS_CFLAGS) $(HTS_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/kernels/%.o: kernels/%.cu $(BUILD)/cuda.stamp | need-build
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Isrc -MMD -MP -c -o $@ $<

# TU_SRCDIR: where the tests find the data that ships in fasta/, from any directory.
$(BUILD)/tests/%.o: tests/%.c $(BUILD)/cc.stamp | need-test
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PS_CFLAGS) $(HTS_CFLAGS) $(CHECK_CFLAGS) -Isrc -DTU_SRCDIR='"$(CURDIR)"' -MMD -MP -c -o $@ $<

$(TESTBIN): $(TEST_OBJ) $(CORE_OBJ) $(BUILD)/config.stamp
	$(CC) $(PS_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(CHECK_LIBS) $(HTS_LIBS) $(GPU_LIBS) $(LDLIBS)

# Tests look for real data in PS_DATA (default ../shared/data) and skip that part, saying so, without it.
PS_DATA ?= $(abspath ../shared/data)
export PS_DATA

# demo, test and the checks first install what is missing (deps), then build in a fresh
# make: that one looks for ISA-L and the libraries after deps has installed them, so it
# builds what every later make keeps (no rebuild). It runs a job per CPU unless -j was
# given (MAKEFLAGS shows -j only inside recipes).
NPROC   := $(shell nproc 2>/dev/null || echo 1)
SUBMAKE  = $(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))

# Every part runs even when one fails; tests/run.sh prints each part's output and ends
# with one line: "make test: N passed, N failed, N skipped (gpu: ...; data: ...)".
test: deps
	@$(SUBMAKE) all $(TESTBIN)
	@bash tests/run.sh ./$(BIN) ./$(TESTBIN)

# Only the GPU suites (check_main.c); fails, saying why, where no GPU is usable.
check-gpu: deps
	@$(SUBMAKE) all $(TESTBIN)
	./$(TESTBIN) --gpu

# The Debian package: built, linted, installed and run (needs root).
check-deb:
	bash tests/deb.sh

# The Bioconda recipe's build script and tests, into a temporary prefix.
check-bioconda:
	bash tests/bioconda.sh

# The Snakemake example, run for real on the data in PS_DATA (needs snakemake).
workflow-test: deps
	@$(SUBMAKE) all
	bash workflows/snakemake/run-example.sh
	bash workflows/nextflow/validate.sh

# The scatter / gather workflows (Snakemake, CWL with cwltool and Toil) on a
# one-host Slurm cluster it starts and stops, each gathered output compared
# with one local run (as root: installs Slurm, munge, Snakemake, cwltool, Toil).
cluster-test: deps
	@$(SUBMAKE) all
	bash tests/cluster.sh ./$(BIN)

# The same tests built with AddressSanitizer and UBSan (CPU code; the kernels
# are checked with compute-sanitizer on a GPU machine instead); the command-line tests once more
# with a build without ISA-L, so that both ways of inflating plain gzip are checked.
ASAN_DIR := build/asan
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
check-asan: deps
	$(SUBMAKE) NO_CUDA=1 BUILD=$(ASAN_DIR) BIN=$(ASAN_DIR)/probescan TESTBIN=$(ASAN_DIR)/check_probescan \
	  CFLAGS="$(ASAN_CFLAGS)" $(ASAN_DIR)/probescan $(ASAN_DIR)/check_probescan
	ASAN_OPTIONS=detect_leaks=1 CK_FORK=no ./$(ASAN_DIR)/check_probescan
	PROBESCAN=./$(ASAN_DIR)/probescan bash tests/cli.sh
	bash tests/firstrun.sh ./$(ASAN_DIR)/probescan ./$(ASAN_DIR)/check_probescan
	bash tests/merge.sh ./$(ASAN_DIR)/probescan
	bash tests/summary.sh ./$(ASAN_DIR)/probescan
	bash tests/kmerset.sh ./$(ASAN_DIR)/probescan
	bash tests/locate.sh ./$(ASAN_DIR)/probescan
	bash tests/guides.sh ./$(ASAN_DIR)/probescan
	$(SUBMAKE) NO_CUDA=1 NO_ISAL=1 BUILD=$(ASAN_DIR)-zlib BIN=$(ASAN_DIR)-zlib/probescan CFLAGS="$(ASAN_CFLAGS)" \
	  $(ASAN_DIR)-zlib/probescan
	PROBESCAN=./$(ASAN_DIR)-zlib/probescan bash tests/cli.sh

# The command line under valgrind's memcheck.
check-valgrind: deps
	@$(SUBMAKE) all
	bash tests/valgrind.sh ./$(BIN)

demo: deps
	@$(SUBMAKE) all
	@bash fasta/demo.sh ./$(BIN)

bench: all
	@bash bench/bench_cpu.sh ./probescan
	@bash bench/bench_patterns.sh ./probescan
	@bash bench/bench_locate.sh ./probescan

# The kernel benchmark driver links the kernels with the probe, automaton and k-mer set code.
build/bench/gpu_bench: bench/gpu_bench.cu $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Isrc -Ikernels -o $@ $< $(CORE_OBJ) $(HTS_LIBS) -lpthread -lm

# The pattern kernel alone on a genome given as FASTA (its header says how).
build/bench/pattern_gpu_bench: bench/pattern_gpu_bench.cu $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Isrc -o $@ $< $(CORE_OBJ) $(HTS_LIBS) -lpthread -lm

bench-gpu: all $(if $(NVCC),build/bench/gpu_bench)
	@bash bench/bench_gpu.sh ./probescan

FUZZ_SECONDS ?= 600
fuzz:
	bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(CURDIR)/build/fuzz

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 probescan $(DESTDIR)$(PREFIX)/bin/probescan
	install -m 644 probescan.1 $(DESTDIR)$(PREFIX)/share/man/man1/probescan.1
	install -m 644 completions/probescan.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/probescan

clean:
	rm -rf build probescan tests/check_probescan

-include $(wildcard $(BUILD)/*/*.d)
