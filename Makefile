# Two entry points (see README): `make run` and `make test`. Both install what is
# missing (scripts/setup.sh), configure and build; CMake does the real work.
# `make run` installs and builds only what the strata executable needs (a fresh build
# folder is configured with STRATA_ONLY_RUN=ON); `make test` installs everything,
# reconfigures the folder for the whole project and builds and runs the test suite.
BUILD ?= build
TYPE  ?= Release
JOBS  ?= $(shell nproc)
ARGS  ?=

.PHONY: setup configure build run test bench clean
setup:
	@bash scripts/setup.sh
configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(TYPE) -DSTRATA_ONLY_RUN=OFF >/dev/null
build: configure
	@cmake --build $(BUILD) -j $(JOBS)
run:
	@bash scripts/setup.sh run
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(TYPE) -DSTRATA_ONLY_RUN=ON >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target strata
	@$(BUILD)/strata $(ARGS)
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
bench: build
	@cmake --build $(BUILD) --target bench
	@cmake --build $(BUILD) --target bench_memtrace
	@cmake --build $(BUILD) --target bench_trace
clean:
	rm -rf $(BUILD)
