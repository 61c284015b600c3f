# probescan - count equal-length probes in FASTA/FASTQ, on the GPU or all CPU cores.
#   make            build ./probescan (with the CUDA engine when nvcc is found)
#   make demo       build and count bundled probes in the bundled E. coli genome
#   make test       unit, randomised and integration tests (GPU tests skip without a GPU)
#   make check-asan the same tests built with AddressSanitizer and UBSan
#   make bench      CPU throughput on the real genomes, beside jellyfish if installed
#   make bench-gpu  GPU kernel, ablation and end-to-end benchmarks (needs a GPU)
#   make install    PREFIX=/usr/local

.DEFAULT_GOAL := all
VERSION  := 0.1.0
PREFIX   ?= /usr/local
CC       ?= cc
# CFLAGS is the user's (optimisation, sanitizers); what the code needs is added apart,
# so that `make CFLAGS=...` keeps it.
CFLAGS   ?= -O3 -g
PS_CFLAGS = $(CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Wextra -pthread -DPS_VERSION='"$(VERSION)"' $(CUDA_DEF)
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

# Where objects and binaries go: check-asan builds into its own folder.
BUILD   ?= build
BIN     ?= probescan
TESTBIN ?= tests/check_probescan

CORE_SRC := src/error.c src/alphabet.c src/pack.c src/probes.c src/automaton.c \
            src/seqio.c src/engine_cpu.c src/scan.c src/output.c src/merge.c \
            src/engine_mixed.c
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
endif
endif
ifneq ($(NVCC),)
GPU_OBJ  := $(patsubst kernels/%.cu,$(BUILD)/kernels/%.o,$(wildcard kernels/*.cu))
CUDA_DEF := -DPS_HAVE_CUDA
else
GPU_OBJ  := $(BUILD)/src/gpu_none.o
GPU_LIBS :=
endif

CORE_OBJ := $(patsubst src/%.c,$(BUILD)/src/%.o,$(CORE_SRC)) $(GPU_OBJ)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(patsubst tests/%.c,$(BUILD)/tests/%.o,$(TEST_SRC))

.PHONY: all deps demo test check-asan check-valgrind workflow-test bench bench-gpu install clean cuda-note FORCE

# Rebuild everything when the compiler set-up changes (CUDA on or off, sanitizer flags).
CONFIG := $(NVCC) $(GPU_LIBS) | $(CC) $(PS_CFLAGS)
$(BUILD)/config.stamp: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CONFIG)' | cmp -s - $@ || echo '$(CONFIG)' > $@
all: deps cuda-note $(BIN)

cuda-note:
ifneq ($(CUDA_MISSING),)
	@echo "probescan: $(CUDA_MISSING) found but no CUDA runtime library beside it: building the CPU-only tool"
else ifeq ($(NVCC),)
	@echo "probescan: nvcc not found (PATH, CUDA_HOME): building the CPU-only tool"
else
	@echo "probescan: building the CUDA engine with $(NVCC) and $(CUDART)"
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

$(BIN): $(BUILD)/src/main.o $(CORE_OBJ) $(BUILD)/config.stamp
	$(CC) $(PS_CFLAGS) -o $@ $(filter %.o,$^) $(HTS_LIBS) $(GPU_LIBS) $(LDLIBS)

$(BUILD)/src/%.o: src/%.c $(BUILD)/config.stamp | deps
	@mkdir -p $(dir $@)
	$(CC) $(PS_CFLAGS) $(HTS_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/kernels/%.o: kernels/%.cu $(BUILD)/config.stamp | deps
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Isrc -MMD -MP -c -o $@ $<

$(BUILD)/tests/%.o: tests/%.c $(BUILD)/config.stamp | deps
	@mkdir -p $(dir $@)
	$(CC) $(PS_CFLAGS) $(HTS_CFLAGS) $(CHECK_CFLAGS) -Isrc -MMD -MP -c -o $@ $<

$(TESTBIN): $(TEST_OBJ) $(CORE_OBJ) $(BUILD)/config.stamp
	$(CC) $(PS_CFLAGS) -o $@ $(filter %.o,$^) $(CHECK_LIBS) $(HTS_LIBS) $(GPU_LIBS) $(LDLIBS)

# Tests look for real data in PS_DATA (default ../shared/data) and skip that part, saying so, without it.
PS_DATA ?= $(abspath ../shared/data)
export PS_DATA

test: all $(TESTBIN)
	./$(TESTBIN)
	PROBESCAN=./probescan bash tests/cli.sh
	bash tests/manpage.sh ./probescan
	bash tests/merge.sh ./probescan

# The Snakemake example, run for real on the data in PS_DATA (needs snakemake).
workflow-test: all
	bash workflows/snakemake/run-example.sh

# The same tests built with AddressSanitizer and UBSan (CPU code; the kernels
# are checked with compute-sanitizer on a GPU machine instead).
ASAN_DIR := build/asan
check-asan: deps
	$(MAKE) NO_CUDA=1 BUILD=$(ASAN_DIR) BIN=$(ASAN_DIR)/probescan TESTBIN=$(ASAN_DIR)/check_probescan \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  $(ASAN_DIR)/probescan $(ASAN_DIR)/check_probescan
	ASAN_OPTIONS=detect_leaks=1 CK_FORK=no ./$(ASAN_DIR)/check_probescan
	PROBESCAN=./$(ASAN_DIR)/probescan bash tests/cli.sh
	bash tests/merge.sh ./$(ASAN_DIR)/probescan

# The command line under valgrind's memcheck.
check-valgrind: all
	bash tests/valgrind.sh ./$(BIN)

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

clean:
	rm -rf build probescan tests/check_probescan

-include $(wildcard $(BUILD)/*/*.d)
