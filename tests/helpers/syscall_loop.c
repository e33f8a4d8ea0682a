// SPDX-License-Identifier: LGPL-2.1-or-later
// syscall_loop: the cost of one system call, for tools/bench-seccomp. Makes N raw getppid
// calls (syscall(2) with the x86_64 number, no glibc wrapper or caching in between) in batches
// and prints the time per call in nanoseconds. Run inside a sandbox with and without a seccomp
// filter, the difference is the filter's cost per call.
//
// usage: syscall_loop [N [BATCH]]
//        syscall_loop --install FILE|- [N [BATCH]]
//        N calls (default 100000) in batches of BATCH (default 1000).
//        --install measures N calls, then installs the classic-BPF program in FILE (what
//        `ringfence policy compile` writes) with seccomp(SECCOMP_SET_MODE_FILTER) after
//        no_new_privs, timing that call, then measures N calls again: the same process on the
//        same CPU moments apart, before and after. `-` installs nothing (a control for drift).
// output: one line, "ns_per_call=MEDIAN min=MIN p10=P10 mean=MEAN calls=N batches=B", each the
//         time per call of a batch (median, minimum and 10th percentile over the batches) or
//         of the whole run (mean); with --install these describe the second run and the line
//         goes on with " before_p10=P10 before_min=MIN install_us=T insns=I". Other load on
//         the machine only ever adds time, so the low percentiles of the batches are the
//         steadiest figures on a busy host.
//
// getppid is allowed by every profile, takes no argument and does almost no work in the
// kernel, so the filter's evaluation is a large share of what is measured.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

struct stats {
  double median, min, p10, mean;
};

// `batches` batches of `batch` getppid calls; `per` has room for the per-batch times.
static struct stats measure(long batches, long batch, double* per) {
  for (long i = 0; i < batches * batch / 10 + 1; ++i) syscall(SYS_getppid);  // warm up
  double start = now_ns();
  for (long b = 0; b < batches; ++b) {
    double t0 = now_ns();
    for (long i = 0; i < batch; ++i) syscall(SYS_getppid);
    per[b] = (now_ns() - t0) / (double)batch;
  }
  struct stats s;
  s.mean = (now_ns() - start) / (double)(batches * batch);
  qsort(per, (size_t)batches, sizeof *per, cmp_double);
  s.median = per[batches / 2];
  s.min = per[0];
  s.p10 = per[batches / 10];
  return s;
}

// Reads a whole classic-BPF program and installs it ("-": none); returns the microseconds
// seccomp() took, or -1 after printing why.
static double install(const char* path, long* insns) {
  static struct sock_filter prog[BPF_MAXINSNS + 1];
  if (strcmp(path, "-") == 0) return 0;
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    perror(path);
    return -1;
  }
  size_t n = fread(prog, sizeof prog[0], BPF_MAXINSNS + 1, f);
  fclose(f);
  if (n == 0 || n > BPF_MAXINSNS) {
    fprintf(stderr, "%s: not a BPF program of 1..%d instructions\n", path, BPF_MAXINSNS);
    return -1;
  }
  struct sock_fprog fprog = {(unsigned short)n, prog};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    perror("PR_SET_NO_NEW_PRIVS");
    return -1;
  }
  double t0 = now_ns();
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) {
    perror("seccomp");
    return -1;
  }
  *insns = (long)n;
  return (now_ns() - t0) / 1000.0;
}

int main(int argc, char** argv) {
  long n = 100000, batch = 1000, insns = 0;
  const char* program = NULL;
  if (argc >= 3 && strcmp(argv[1], "--install") == 0) {
    program = argv[2];
    argc -= 2;
    argv += 2;
  }
  if (argc > 3 || (argc >= 2 && (n = strtol(argv[1], NULL, 10)) <= 0) ||
      (argc == 3 && (batch = strtol(argv[2], NULL, 10)) <= 0)) {
    fputs("usage: syscall_loop [--install FILE|-] [N [BATCH]]\n", stderr);
    return 2;
  }
  if (batch > n) batch = n;
  long batches = n / batch;
  double* per = malloc((size_t)batches * sizeof *per);
  if (per == NULL) return 1;
  struct stats before = {0, 0, 0, 0};
  double install_us = 0;
  if (program != NULL) {
    before = measure(batches, batch, per);
    if ((install_us = install(program, &insns)) < 0) return 1;
  }
  struct stats s = measure(batches, batch, per);
  printf("ns_per_call=%.2f min=%.2f p10=%.2f mean=%.2f calls=%ld batches=%ld", s.median, s.min, s.p10, s.mean,
         batches * batch, batches);
  if (program != NULL)
    printf(" before_p10=%.2f before_min=%.2f install_us=%.1f insns=%ld", before.p10, before.min, install_us,
           insns);
  putchar('\n');
  free(per);
  return 0;
}
