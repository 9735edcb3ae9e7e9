# Two entry points (see README): `make run` and `make test`. Both install what is
# missing (scripts/setup.sh), configure and build; CMake does the real work.
BUILD ?= build
TYPE  ?= Release
JOBS  ?= $(shell nproc)
ARGS  ?=

.PHONY: setup configure build run test bench clean
setup:
	@bash scripts/setup.sh
configure: setup
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(TYPE)
build: configure
	@cmake --build $(BUILD) -j $(JOBS)
run: build
	@$(BUILD)/strata $(ARGS)
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
bench: build
	@cmake --build $(BUILD) --target bench
	@cmake --build $(BUILD) --target bench_memtrace
	@cmake --build $(BUILD) --target bench_trace
clean:
	rm -rf $(BUILD)
