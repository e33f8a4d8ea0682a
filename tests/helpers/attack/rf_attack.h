// SPDX-License-Identifier: LGPL-2.1-or-later
// rf-attack: shared declarations. See main.c for the command line and the JSON contract.
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { LV_KERNEL = 1, LV_LANDLOCK = 2, LV_SOFT = 4 };
#define LV_ALL (LV_KERNEL | LV_LANDLOCK | LV_SOFT)
#define LV_KL (LV_KERNEL | LV_LANDLOCK)
#define LV_K LV_KERNEL
#define LV_NONE 0

enum outcome { OUT_NONE = 0, OUT_BLOCKED, OUT_SUCCEEDED, OUT_SKIPPED };

// What the driver told us (see main.c).
struct config {
  const char* canary;       // token planted by the driver, or NULL
  const char* home_canary;  // a file in the real home, or NULL
  const char* project;      // the project folder (default: the working directory)
  const char* host_socket;  // a pathname unix socket outside the sandbox, or NULL
  long sysv_key;            // SysV key of the host's shm segment (-1: none)
  bool net_fixture;         // the hermetic fixture is "the host network"
  bool network_off;         // the sandbox was started with the network off
  int inherited_fds[64];    // descriptors open at start, above 2
  int n_inherited;
  int i386;      // 1 usable, 0 absent (faults), 2 killed by a filter
  int x32;       // 1 usable, 0 absent (ENOSYS), 2 killed by a filter
  int ppid;      // rf-attack's parent (the attacks run in its children)
  char tag[32];  // names files the attacks create: rf-attack-*-TAG (never the canary)
};
extern struct config cfg;

struct attack;
typedef void (*attack_fn)(const struct attack* a);
struct attack {
  char id[64];
  const char* row;
  char title[160];
  unsigned protects;
  attack_fn fn;
  long arg;          // variant selector
  const char* sarg;  // variant string (an address, a path, ...)
  const char* skip;  // when set: always skipped with this reason
};

// Registration (attacks_*.c call these from their register_* function).
struct attack* add_attack(const char* id, const char* row, unsigned protects, attack_fn fn, long arg,
                          const char* sarg, const char* title_fmt, ...) __attribute__((format(printf, 7, 8)));
void add_skipped(const char* id, const char* row, const char* title, const char* reason);
void register_proc_attacks(void);
void register_fs_attacks(void);
void register_sys_attacks(void);
void register_net_attacks(void);

// Result of the running attack (in the forked child; sent to the parent through a pipe).
void blocked(int err, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void succeeded(int err, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void skipped(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Accumulate several tries of one attack: any success makes it succeeded.
struct acc {
  int tries, wins, first_err;
  char text[1400];
};
void acc_add(struct acc* a, bool success, int err, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
void acc_note(struct acc* a, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void acc_done(struct acc* a, const char* none_reason);

// Raw system calls.
long rsys(long nr, long a1, long a2, long a3, long a4, long a5, long a6);          // -1 and errno on error
long asm_syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6);  // returns -errno
long i386_call(long nr, long a1, long a2, long a3, long a4, long a5, long a6);     // returns -errno
#define X32_BIT 0x40000000L
// Run fn(arg) in a forked child (with its own alarm); returns the child's wait status and the value
// fn returned through ret and err. Used for calls that may kill (SIGSYS) or change the caller.
struct child_res {
  int status;  // wait status
  long ret;
  int err;
};
struct child_res in_child(long (*fn)(void*), void* arg, int timeout_s);
const char* signame_of(int sig);
const char* errname(int err);

// Files and /proc.
ssize_t read_file(const char* path, char* buf, size_t cap);  // -1 and errno; NUL-terminated
bool mem_contains(const char* hay, size_t n, const char* needle);
bool caps_dangerous_on_host(void);       // CAP_SYS_ADMIN in the initial user namespace
bool is_outside(int pid);                // another pid namespace, or a holder of the canary
int canary_holders(int* pids, int max);  // processes whose environ or cmdline holds the canary
int visible_pids(int* pids, int max);
void* low_page(void);     // a page below 4 GiB (i386 pointers)
long landlock_abi(void);  // the kernel's Landlock ABI, or -1
extern const char* const EMPTY_ENV[];
