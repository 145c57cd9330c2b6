# h5ufunc - NumPy ufuncs over HDF5 datasets, on one process or many MPI ranks.
#
#   make            build build/h5ufunc
#   make check      install missing dependencies, build, run the Bats suite
#                   (after a short run of the fuzzers: FUZZ_SECONDS=0 skips it)
#   make check SANITIZE=1   the same with ASan and UBSan, built apart in
#                   build-san/ (each build records its flags in its flags
#                   file and rebuilds when they change)
#   make fuzz, make fuzz-long   the libFuzzer targets (tests/fuzz/fuzz.mk)
#   make bench      time h5ufunc against NumPy + h5py (tests/bench/run), and
#                   its matrix products against NumPy + h5py and dask (tests/bench/matmul)
#   make demo       install missing dependencies, build, run a sample recipe on 2 ranks
#   make install PREFIX=/usr/local
#   make V=1        show full commands

CC      = mpicc
PKGS    = hdf5-openmpi yaml-0.1
# SLEEF: the vector functions of the transcendental loops (loops_vmath.c)
PKGS   += sleef
# libdeflate: HDF5's gzip chunks, compressed and decompressed (deflate.c)
PKGS   += libdeflate
PREFIX ?= /usr/local
OPT    ?= -O3
CFLAGS ?= $(OPT) -g
WARN    = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter
# include/: the modules' public headers.  A header that only its module's
# own files read (planner.h, loops.h, reader.h, h5io_internal.h, ...) sits
# beside them in src/, where #include "..." finds it first; -MMD tracks both.
CPPFLAGS += -Iinclude -Ibuild/gen $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# -lhdf5_hl: HDF5's high-level library, for dimension scales (src/dims.c, src/coords.c);
# -ludunits2: UDUNITS-2, for units (src/units.c)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lhdf5_hl -ludunits2 -lm
# OpenBLAS through CBLAS: the block products of the generalized ufuncs
# (src/loops_gemm.c).  Debian's serial build (libopenblas0-serial), one BLAS
# thread per rank: the ranks already fill the cores, and the threaded build
# would start its pool of threads in every process.  cblas.h is
# libopenblas-dev's (its pkg-config file names the threaded build, so the
# serial library is linked by its path, and found there again at run time).
BLAS_DIR = /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null)/openblas-serial
CPPFLAGS += $(shell pkg-config --cflags openblas 2>/dev/null)
LDLIBS  += $(BLAS_DIR)/libopenblas.so.0 -Wl,-rpath,$(BLAS_DIR)
# The write calls of src/intercept.c, exported so that the MPI-IO
# components Open MPI loads with dlopen call them (journal.h says why).
LDFLAGS += -Wl,--dynamic-list=src/intercept.sym
# The sanitized build has a directory of its own, so that it and the plain
# build never overwrite each other's objects: switching costs nothing.
BUILD   = build
ifdef SANITIZE
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
BUILD   = build-san
endif

SRC  = $(sort $(wildcard src/*.c))
OBJ  = $(SRC:src/%.c=$(BUILD)/%.o)
BIN  = $(BUILD)/h5ufunc
VERSION = 0.1.0

ifeq ($(V),1)
Q =
else
Q = @
endif

# Unit programs: tests/unit/NAME.c linked with every module but main.
UNIT_SRC = $(sort $(wildcard tests/unit/*.c))
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
LIBOBJ   = $(filter-out $(BUILD)/main.o,$(OBJ))

all: $(BIN) $(UNIT_BIN)

$(BUILD)/unit/%: tests/unit/%.c $(LIBOBJ) | $(BUILD)
	@mkdir -p $(BUILD)/unit
	@echo "  CC    $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $< $(LIBOBJ) $(LDLIBS)

$(BIN): $(OBJ)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(OBJ) $(LDLIBS)

# The type loops need no errno from libm (NumPy reports floating-point
# errors from the FPU's flags): sqrt and friends become one instruction,
# and loops over them vectorize.  No multiply-add is ever fused, so that
# every instruction-set level computes the same bits (cpu.h).
$(BUILD)/loops_%.o: CFLAGS += -fno-math-errno -ffp-contract=off
# cf.c unpacks CF-packed values in loops of its own: NumPy's two roundings
# (no fused multiply-add), and the tests of missing values computed beside
# the values so that the loop vectorizes (no floating-point traps assumed;
# no value changes).
$(BUILD)/cf.o: private CFLAGS += -ffp-contract=off -fno-trapping-math

# comm.c makes some of Open MPI's choices where the user has not (ROMIO for
# MPI-IO where ompi_info lists a ROMIO component; ob1 on one node), and
# reads Open MPI's parameter files under its sysconfdir to tell.  Asked
# when comm.o is compiled, after make deps has installed Open MPI.
OMPI_SYSCONFDIR = $(shell ompi_info --path sysconfdir 2>/dev/null | sed -n 's/^ *Sysconfdir: *//p')
OMPI_FLAGS = $(if $(OMPI_SYSCONFDIR),-DH5UFUNC_OMPI_SYSCONFDIR='"$(OMPI_SYSCONFDIR)"') \
	$(if $(shell ompi_info --parsable 2>/dev/null | grep '^mca:io:romio'),-DH5UFUNC_OMPI_ROMIO)
$(BUILD)/comm.o: private CPPFLAGS += $(OMPI_FLAGS)

$(BUILD)/%.o: src/%.c | $(BUILD)
	@echo "  CC    $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -DH5UFUNC_VERSION='"$(VERSION)"' -MMD -MP -c -o $@ $<

$(BUILD):
	$(Q)mkdir -p $(BUILD)

# $(BUILD)/flags records how the objects were compiled; when that changes
# (another OPT or CFLAGS), everything rebuilds.
BUILD_FLAGS = $(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)
$(BUILD)/flags: FORCE | $(BUILD)
	$(Q)echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@
$(OBJ) $(BIN) $(UNIT_BIN): $(BUILD)/flags
$(BIN) $(UNIT_BIN): src/intercept.sym
FORCE:

-include $(OBJ:.o=.d)

# Debian/Ubuntu packages needed to build, test and run the demo.
DEB_PKGS = make gcc pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev \
	libyaml-dev hdf5-tools bats bats-assert bats-support bats-file \
	python3-numpy python3-h5py-mpi python3-mpi4py groff-base time clang libclang-rt-14-dev
DEB_PKGS += strace
# A single-node SLURM for tests/60-slurm.bats (tests/slurm/cluster).
DEB_PKGS += slurmctld slurmd slurm-client munge
# SLEEF: the vector transcendental functions (src/loops_vmath.c).
DEB_PKGS += libsleef-dev
# libdeflate: HDF5's gzip chunks (src/deflate.c).
DEB_PKGS += libdeflate-dev
# Named dimensions, units and missing values: netCDF-4 files made from CDL,
# xarray and unyt as references.
DEB_PKGS += netcdf-bin python3-netcdf4 python3-xarray python3-unyt libudunits2-dev
# OpenBLAS, serial, for the generalized ufuncs' block products; dask for
# make bench's peers (xarray with dask beside the matrix products and the
# CF reductions, tests/bench).
DEB_PKGS += libopenblas-dev libopenblas0-serial python3-dask
# Compression filters read and written through Debian's plugins (src/filter.c;
# hdf5-plugin-lzf's plugin needs liblzf1 but does not depend on it), and NCO,
# which appends to h5ufunc's netCDF-4 files in tests/37-netcdf.bats.
DEB_PKGS += hdf5-plugin-lzf liblzf1 hdf5-filter-plugin hdf5-filter-plugin-blosc-serial \
	hdf5-filter-plugin-zfp-serial nco
# CF decoding and packing: NCO's ncpdq as a reference (tests/71-cf.bats);
# NCO's ncap2 and ncwa as peers in make bench (nco and python3-dask above).

deps:
	$(Q)tools/install-deps $(DEB_PKGS)

# The build inside check, bench and demo uses every core: the sanitized
# build of the generated loops takes minutes a file on one.
JOBS   ?= $(shell nproc 2>/dev/null || echo 1)

# tests/run takes the binary of this build (and its unit programs beside it).
check: deps
	$(Q)$(MAKE) -j$(JOBS) --no-print-directory all
	$(Q)H5UFUNC=$(CURDIR)/$(BIN) tests/run

# bench and demo time and show the plain build, whatever SANITIZE says.
bench: deps
	$(Q)$(MAKE) -j$(JOBS) --no-print-directory all SANITIZE=
	$(Q)tests/bench/run
	$(Q)tests/bench/cf
	$(Q)tests/bench/matmul

demo: deps
	$(Q)$(MAKE) -j$(JOBS) --no-print-directory all SANITIZE=
	$(Q)tools/demo

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/h5ufunc
	install -m 644 man/h5ufunc.1 $(DESTDIR)$(PREFIX)/share/man/man1/h5ufunc.1
	install -m 644 man/h5ufunc-recipe.5 $(DESTDIR)$(PREFIX)/share/man/man5/h5ufunc-recipe.5

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/h5ufunc $(DESTDIR)$(PREFIX)/share/man/man1/h5ufunc.1 \
		$(DESTDIR)$(PREFIX)/share/man/man5/h5ufunc-recipe.5

clean:
	rm -rf build build-san

.PHONY: all deps check bench demo install uninstall clean FORCE

# make fuzz, fuzz-check, fuzz-long: the libFuzzer targets.
-include tests/fuzz/fuzz.mk
