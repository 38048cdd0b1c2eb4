/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer harnesses share. The checkers read files, so each
 * input is written to a file of the harness's own first.
 */
#ifndef SW_FUZZ_COMMON_H
#define SW_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "judge/metric_registry.h"
#include "lib/util.h"

/* libFuzzer's entry point, called once per input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Writes @data to @name in a directory of this process (removed at exit)
 * and returns its path; aborts when it cannot, as a harness that reads
 * nothing would pass everything.
 */
const char *fuzz_file(const char *name, const uint8_t *data, size_t size);

/*
 * A checker accepted what it must not (a silent acceptance): prints why
 * and aborts, so that libFuzzer keeps the input as a crash.
 */
__printf(1, 2)
void fuzz_fail(const char *fmt, ...);

/* Every value of @set is a number or NAN (unknown), never infinite. */
void fuzz_check_values(const struct metric_set *set, const char *what);

#endif /* SW_FUZZ_COMMON_H */
