// SPDX-License-Identifier: LGPL-2.1-or-later
// syscall_jail: run a command under a seccomp filter that makes chosen system calls fail, to
// simulate older kernels (ENOSYS for clone3, openat2, mount_setattr) and hosts that deny user
// namespaces (EPERM for clone/unshare with CLONE_NEWUSER, as Docker's default profile does).
//
// usage: syscall_jail [--enosys NAME]... [--deny-userns] -- COMMAND [ARGS...]
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int die(const char* what, int err) {
  fprintf(stderr, "syscall_jail: %s: %s\n", what, strerror(err));
  return 125;
}

int main(int argc, char** argv) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == NULL) return die("seccomp_init", ENOMEM);
  int i = 1;
  for (; i < argc; ++i) {
    if (strcmp(argv[i], "--") == 0) {
      ++i;
      break;
    }
    if (strcmp(argv[i], "--enosys") == 0 && i + 1 < argc) {
      int nr = seccomp_syscall_resolve_name(argv[++i]);
      if (nr == __NR_SCMP_ERROR) return die(argv[i], EINVAL);
      int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
      if (rc < 0) return die("seccomp_rule_add", -rc);
    } else if (strcmp(argv[i], "--deny-userns") == 0) {
      // clone3 passes its flags in memory, which seccomp cannot read: ENOSYS makes callers
      // fall back to clone, whose flags are filtered.
      int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
      if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
      if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
      if (rc < 0) return die("seccomp_rule_add", -rc);
    } else {
      fprintf(stderr, "usage: syscall_jail [--enosys NAME]... [--deny-userns] -- COMMAND [ARGS...]\n");
      return 125;
    }
  }
  if (i >= argc) return die("no command", EINVAL);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return die("no_new_privs", errno);
  int rc = seccomp_load(ctx);
  if (rc < 0) return die("seccomp_load", -rc);
  seccomp_release(ctx);
  execvp(argv[i], argv + i);
  return die(argv[i], errno);
}
