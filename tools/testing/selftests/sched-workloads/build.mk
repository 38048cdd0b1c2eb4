# SPDX-License-Identifier: GPL-2.0
#
# The one description of how sched-workloads builds: its sources by
# layer, the libraries and the flags. The collection's Makefile and
# fuzz/Makefile include it; the tests' checkers ask it with
# "make -s -f build.mk print-VARIABLE" (tests/swtest.py).

SW_ROOT := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SW_LIBS := json-c libtracefs libtracecmd libtraceevent libzstd
SW_PKG_CFLAGS := $(shell pkg-config --cflags $(SW_LIBS) 2>/dev/null)
SW_PKG_LIBS := $(shell pkg-config --libs $(SW_LIBS) 2>/dev/null)
# SW_SOURCE_DIR: where the python3 programs of a tree are found when the
# binary runs from elsewhere (O=); an installed copy has its own lab/.
# A guest's binary sets it to where its guest has them (vm_guest.py): a
# host path would make the binary, and so the guest, the host's.
SW_SOURCE_DIR ?= $(abspath $(SW_ROOT))
SW_CPPFLAGS := -D_GNU_SOURCE -I$(abspath $(SW_ROOT)) \
	-DSW_SOURCE_DIR='"$(SW_SOURCE_DIR)"' $(SW_PKG_CFLAGS)
SW_LDLIBS := $(SW_PKG_LIBS) -lm -pthread

# The layers, top down: a file calls its own layer or those below it
# (layers.txt, checked by "make style").
SW_LAYERS := desk cmd run judge machine trace rtapp lib
sw_srcs = $(sort $(wildcard $(addprefix $(SW_ROOT)/,$(addsuffix /*.c,$(1)))))
SW_MAIN := $(SW_ROOT)/sched-workloads.c
SW_SRCS := $(SW_MAIN) $(call sw_srcs,$(SW_LAYERS))
SW_HDRS := $(sort $(wildcard $(addprefix $(SW_ROOT)/,$(addsuffix /*.h,$(SW_LAYERS)))))
# What the trace analysis checkers of tests/ link: the analysis, on lib/.
SW_ANALYSIS_SRCS := $(call sw_srcs,trace lib)

print-%:
	@echo $($*)
