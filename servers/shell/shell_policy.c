/*
 * shell_policy.c: the [shell] section of toolcell-policy(5), the programs
 * toolcell-shell may run, their argument rules, and the environment they
 * run with.  Each program is resolved once, when the policy is read: a
 * bare name against SHELL_PATH, a path as it is, both to a canonical,
 * regular, executable file; and what the kernel also executes to run it
 * (an ELF's interpreter, a script's #! program, what those need in turn)
 * is found then too, so that the profile can grant the execute right on
 * exactly those files.
 *
 *	program NAME|PATH [read-only]
 *	args PROGRAM subcommands WORD...
 *	args PROGRAM options PATTERN...
 *	args PROGRAM deny PATTERN...
 *	args PROGRAM no-dash-operands
 *	args PROGRAM prefix ARG...
 *	args PROGRAM helpers PATH...
 *	env PATTERN...
 *	env-set NAME=VALUE...
 *	home PATH|scratch
 *	output SIZE
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strv.h"
#include "base/text.h"
#include "policy/glob.h"
#include "policy/policy.h"
#include "policy/section.h"
#include "sandbox/pids.h"
#include "shell.h"

/* The default and the bounds of "output", per stream. */
#define OUTPUT_DEFAULT	(8ULL << 20)
#define OUTPUT_MIN	(1ULL << 10)
#define OUTPUT_MAX	(256ULL << 20)

/* What the kernel reads of a file to tell how to run it (fs/exec.c's
 * BINPRM_BUF_SIZE): a #! line must end within it. */
#define EXEC_HEAD	256

/* Interpreters in a row ("#!" to a script whose "#!" ...), at most; the
 * kernel stops at 4 within one execve, env(1) starts a new one. */
#define CHAIN_MAX	8

/* Files a helpers directory may hold, at most, and how deep. */
#define HELPERS_FILES	16384
#define HELPERS_DEPTH	16

/* A 64-bit ELF of the machine the server is built for; others are
 * refused. */
#if defined(__x86_64__)
#define NATIVE_MACHINE	EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE	EM_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_MACHINE	EM_RISCV
#elif defined(__powerpc64__)
#define NATIVE_MACHINE	EM_PPC64
#elif defined(__s390x__)
#define NATIVE_MACHINE	EM_S390
#elif defined(__loongarch64)
#define NATIVE_MACHINE	EM_LOONGARCH
#else
#define NATIVE_MACHINE	EM_NONE		/* every ELF is refused */
#endif

/* --- Names --- */

/*
 * Shells and interpreters, by the last component of their path: each runs
 * what its arguments or its input say (awk's system function and its
 * print | "cmd" included), so only the kernel limits what it does.
 * Patterns: "python*" is python3, python3.11, ...
 */
static const char *const interpreters[] = {
	"sh", "ash", "bash", "rbash", "dash", "zsh", "ksh", "ksh93", "mksh",
	"pdksh", "oksh", "yash", "csh", "tcsh", "fish", "elvish", "nu",
	"xonsh", "pwsh", "busybox", "toybox",
	"python*", "pypy*", "perl*", "ruby*", "irb", "node", "nodejs",
	"deno", "bun", "php*", "lua*", "luajit*", "tclsh*", "wish*",
	"expect", "guile*", "R", "Rscript", "julia", "jshell", "ghci",
	"awk", "gawk", "mawk", "nawk", "original-awk",
};

/*
 * Programs that start other programs with arguments of their own choosing
 * (find's -exec, make's recipes, env and xargs by design): the argument
 * rules of what they start do not apply, only the kernel's list of what
 * may run.  --check says so.
 */
static const char *const runners[] = {
	"env", "xargs", "nice", "nohup", "timeout", "stdbuf", "setsid",
	"flock", "chrt", "ionice", "taskset", "unshare", "nsenter", "watch",
	"time", "strace", "ltrace", "gdb", "valgrind", "parallel", "find",
	"make", "gmake", "sudo", "doas", "su", "runuser", "script",
};

/* The last component of |path|. */
static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

/* Returns 1 if |name| matches one of the |n| patterns of |pats|. */
static int
name_in(const char *name, const char *const *pats, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tc_glob_match_string(pats[i], name))
			return 1;
	return 0;
}

int
shell_is_interpreter(const char *path)
{
	return path != NULL && name_in(base_name(path), interpreters,
	    TC_NITEMS(interpreters));
}

/* The names of node's file: "node", Debian's "nodejs", a distribution's
 * versioned "node20".  V8's JIT compiler writes the code it runs. */
static const char *const nodes[] = {
	"node", "nodejs", "node[0-9]*", "nodejs[0-9]*",
};

static int
is_node(const char *path)
{
	return name_in(base_name(path), nodes, TC_NITEMS(nodes));
}

static int
is_runner(const char *path)
{
	return name_in(base_name(path), runners, TC_NITEMS(runners));
}

int
shell_program_readonly(const struct shell_program *p)
{
	char *const *v;

	if (!p->readonly || p->interpreter || is_runner(p->name) ||
	    (p->path != NULL && is_runner(p->path)) || p->helpers != NULL)
		return 0;
	for (v = p->exec_also; v != NULL && *v != NULL; v++)
		if (shell_is_interpreter(*v))
			return 0;
	return 1;
}

/* --- The environment's names --- */

/*
 * Names never passed to a program, whatever the policy says: each makes
 * some program load code or configuration from where it says, run a
 * command, or reach something outside the sandbox's view.  The "env" list
 * is an allowlist a person writes; this guards it against a slip.  A
 * pattern here ends in '*' and stands for a prefix (SSH_ASKPASS and
 * GIT_ASKPASS are among SSH_* and GIT_*).
 */
static const char *const env_never[] = {
	/* The dynamic linker and the C library. */
	"LD_*", "GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH",
	"HOSTALIASES", "RESOLV_HOST_CONF", "MALLOC_*",
	/* Shells. */
	"BASH_ENV", "ENV", "BASH_FUNC_*", "SHELLOPTS", "BASHOPTS", "PS4",
	"PROMPT_COMMAND", "IFS", "CDPATH", "GLOBIGNORE", "SHELL", "ZDOTDIR",
	"INPUTRC",
	/* git: configuration, programs it starts, where it looks. */
	"GIT_*",
	/* Interpreters' module paths and startup code. */
	"PYTHON*", "PERL*", "RUBY*", "NODE_OPTIONS", "NODE_PATH", "LUA_*",
	"TCLLIBPATH", "PHPRC", "PHP_INI_SCAN_DIR", "JAVA_TOOL_OPTIONS",
	"_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH", "R_PROFILE*",
	"R_ENVIRON*", "GEM_*", "BUNDLE_*",
	/* Programs a program starts for its user. */
	"PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN",
	"LESSCLOSE", "LESSKEY*", "SUDO_ASKPASS",
	/* Where configuration is read from, and what it names. */
	"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "MAKEFLAGS", "MFLAGS",
	"GNUMAKEFLAGS", "MAKEFILES", "TERMINFO", "TERMINFO_DIRS", "VIMINIT",
	"EXINIT", "MYVIMRC", "EMACSLOADPATH", "CURL_HOME", "WGETRC",
	/* Agents and buses outside the sandbox. */
	"SSH_*", "GPG_AGENT_INFO", "DBUS_*", "XAUTHORITY", "DISPLAY",
	"WAYLAND_*", "DOCKER_*",
	/* Options and programs of tools that run commands or load code:
	 * tar's --to-command, rsync's remote shell, OpenSSL's engines and
	 * modules, zsh's function path, GTK's modules, build tools'
	 * compilers and wrappers, npm's scripts. */
	"TAR_OPTIONS", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "OPENSSL_CONF",
	"OPENSSL_ENGINES", "OPENSSL_MODULES", "FPATH", "GTK_MODULES",
	"GTK_PATH", "RUSTC_WRAPPER", "RUSTC", "CARGO_*", "CC", "CXX", "CPP",
	"LD", "AR", "npm_config_*", "NPM_CONFIG_*",
};

/* The names of env_never that may be passed all the same: who a commit is
 * by, which changes what git records, not what it runs. */
static const char *const env_granted[] = {
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
};

/* Returns the pattern of env_never that refuses |name|, or NULL. */
static const char *
env_refused(const char *name)
{
	size_t i;

	if (strcmp(name, "PATH") == 0 || strcmp(name, "HOME") == 0)
		return name;
	for (i = 0; i < TC_NITEMS(env_granted); i++)
		if (strcmp(name, env_granted[i]) == 0)
			return NULL;
	for (i = 0; i < TC_NITEMS(env_never); i++)
		if (tc_glob_match_string(env_never[i], name))
			return env_never[i];
	return NULL;
}

/* Returns the length of |pat| before its first special byte. */
static size_t
literal_len(const char *pat)
{
	return strcspn(pat, "*?[\\");
}

/*
 * Returns the pattern of env_never (or "PATH", "HOME") that the pattern
 * |pat| could match a name of, or NULL.  Two patterns are taken to meet
 * when the literal start of one is a start of the other's: "L*" meets
 * "LD_*", "LC_*" does not.  Cautious: "LD?X" is refused too.
 */
static const char *
env_pattern_refused(const char *pat)
{
	static const char *const fixed[] = { "PATH", "HOME" };
	size_t i, lp = literal_len(pat), lq;
	const char *q;

	for (i = 0; i < TC_NITEMS(fixed); i++)
		if (tc_glob_match_string(pat, fixed[i]))
			return fixed[i];
	for (i = 0; i < TC_NITEMS(env_never); i++) {
		q = env_never[i];
		lq = literal_len(q);
		if (q[lq] == '\0') {
			if (tc_glob_match_string(pat, q))
				return q;
			continue;
		}
		/* |q| is a prefix class, "LD_*". */
		if (strncmp(pat, q, lp < lq ? lp : lq) == 0)
			return q;
	}
	return NULL;
}

/* Returns 1 if |s|, |n| bytes, is a name a program's environment may
 * hold: a letter or '_' first, then letters, digits and '_'. */
static int
env_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* Returns 1 if env-set in |sp| fixes |name|. */
static int
env_fixed(const struct shell_policy *sp, const char *name)
{
	size_t n = strlen(name);
	char **v;

	for (v = sp->env_fixed; v != NULL && *v != NULL; v++)
		if (strncmp(*v, name, n) == 0 && (*v)[n] == '=')
			return 1;
	return 0;
}

int
shell_env_allowed(const struct shell_policy *sp, const char *name)
{
	char **v;

	if (sp == NULL || !env_name_ok(name, strlen(name)) ||
	    env_refused(name) != NULL || env_fixed(sp, name))
		return 0;
	for (v = sp->env_pass; v != NULL && *v != NULL; v++)
		if (tc_glob_match_string(*v, name))
			return 1;
	return 0;
}

/* --- Lists --- */

/* Appends a copy of |s| to the NULL-terminated |*v| of |*n| strings, once
 * (if |once|).  Returns 0, or -1 when out of memory. */
static int
strv_add(char ***v, size_t *n, const char *s, int once)
{
	char **nv, *dup;
	size_t i;

	for (i = 0; once && i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return 0;
	if ((dup = strdup(s)) == NULL)
		return -1;
	if ((nv = reallocarray(*v, *n + 2, sizeof(*nv))) == NULL) {
		free(dup);
		return -1;
	}
	nv[(*n)++] = dup;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

static size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

/* --- What the kernel executes --- */

enum exe_kind {
	EXE_BAD,	/* neither: |why| says what it is */
	EXE_STATIC,	/* an ELF without an interpreter */
	EXE_DYNAMIC,	/* an ELF with one: |interp| */
	EXE_SCRIPT,	/* "#!": |interp| and its argument, |arg| */
};

struct exe {
	enum exe_kind	 kind;
	char		 interp[EXEC_HEAD];
	char		 arg[EXEC_HEAD];
	char		 why[160];
};

/* Reads the ELF open as |fd|, whose first |n| bytes are |head|. */
static void
exe_elf(int fd, const unsigned char *head, size_t n, struct exe *e)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned i;
	ssize_t r;

	e->kind = EXE_BAD;
	if (n < sizeof(eh) || head[EI_CLASS] != ELFCLASS64 ||
	    head[EI_VERSION] != EV_CURRENT) {
		tc_text_fmt(e->why, sizeof(e->why), "not a 64-bit ELF file");
		return;
	}
	memcpy(&eh, head, sizeof(eh));
	if (eh.e_machine != NATIVE_MACHINE || (eh.e_type != ET_EXEC &&
	    eh.e_type != ET_DYN)) {
		tc_text_fmt(e->why, sizeof(e->why), "an ELF file of another "
		    "machine, or not an executable");
		return;
	}
	if (eh.e_phentsize != sizeof(ph) || eh.e_phnum == 0 ||
	    eh.e_phnum >= PN_XNUM) {
		tc_text_fmt(e->why, sizeof(e->why), "an ELF file without a "
		    "program header table the kernel reads");
		return;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		r = pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
		    (Elf64_Off)i * sizeof(ph)));
		if (r != (ssize_t)sizeof(ph)) {
			tc_text_fmt(e->why, sizeof(e->why), "its ELF program "
			    "headers cannot be read");
			return;
		}
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz < 2 || ph.p_filesz > sizeof(e->interp) ||
		    pread(fd, e->interp, ph.p_filesz, (off_t)ph.p_offset) !=
		    (ssize_t)ph.p_filesz ||
		    e->interp[ph.p_filesz - 1] != '\0' ||
		    strlen(e->interp) != ph.p_filesz - 1) {
			tc_text_fmt(e->why, sizeof(e->why), "its ELF interpreter "
			    "(PT_INTERP) cannot be read");
			return;
		}
		e->kind = EXE_DYNAMIC;
		return;
	}
	e->kind = EXE_STATIC;
}

/* Reads the "#!" line of the |n| bytes at |head|. */
static void
exe_script(const unsigned char *head, size_t n, struct exe *e)
{
	const char *s = (const char *)head + 2, *end, *nl;
	size_t len;

	e->kind = EXE_BAD;
	if ((nl = memchr(s, '\n', n - 2)) == NULL) {
		tc_text_fmt(e->why, sizeof(e->why), "its #! line is longer than "
		    "the %d bytes the kernel reads", EXEC_HEAD);
		return;
	}
	while (s < nl && (*s == ' ' || *s == '\t'))
		s++;
	for (end = s; end < nl && *end != ' ' && *end != '\t'; end++)
		;
	len = (size_t)(end - s);
	if (len == 0 || memchr(s, '\0', (size_t)(nl - s)) != NULL) {
		tc_text_fmt(e->why, sizeof(e->why), "its #! line names no "
		    "interpreter");
		return;
	}
	memcpy(e->interp, s, len);
	e->interp[len] = '\0';
	/* The rest of the line, trimmed, is one argument, as the kernel
	 * passes it. */
	for (s = end; s < nl && (*s == ' ' || *s == '\t'); s++)
		;
	for (end = nl; end > s && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r'); end--)
		;
	memcpy(e->arg, s, (size_t)(end - s));
	e->arg[end - s] = '\0';
	e->kind = EXE_SCRIPT;
}

/* Tells how the kernel runs the file |path|. */
static void
exe_read(const char *path, struct exe *e)
{
	unsigned char head[EXEC_HEAD];
	ssize_t n;
	int fd;

	memset(e, 0, sizeof(*e));
	e->kind = EXE_BAD;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) < 0) {
		tc_text_fmt(e->why, sizeof(e->why), "cannot be read: %s",
		    strerror(errno));
		return;
	}
	if ((n = pread(fd, head, sizeof(head), 0)) < 0)
		tc_text_fmt(e->why, sizeof(e->why), "cannot be read: %s",
		    strerror(errno));
	else if (n >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0)
		exe_elf(fd, head, (size_t)n, e);
	else if (n >= 2 && head[0] == '#' && head[1] == '!')
		exe_script(head, (size_t)n, e);
	else
		tc_text_fmt(e->why, sizeof(e->why), "neither an ELF executable "
		    "nor a script starting with #!");
	close(fd);
}

/* Returns 0 if |path| is a regular file that can be executed, else -1
 * with |why|. */
static int
executable(const char *path, char *why, size_t len)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		tc_text_fmt(why, len, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		tc_text_fmt(why, len, "not a regular file");
		return -1;
	}
	if ((st.st_mode & 0111) == 0 || access(path, X_OK) != 0) {
		tc_text_fmt(why, len, "not executable");
		return -1;
	}
	return 0;
}

/*
 * Finds the bare |name| in SHELL_PATH as execvp(3) would (the first
 * regular executable file) and writes its path, as found, into |out|.
 * Returns 0, or -1.
 */
static int
search_path(const char *name, char *out, size_t len)
{
	const char *dir = SHELL_PATH, *colon;
	char why[64];
	size_t dlen;

	for (; *dir != '\0'; dir = *colon != '\0' ? colon + 1 : colon) {
		colon = strchrnul(dir, ':');
		dlen = (size_t)(colon - dir);
		if (dlen == 0)
			continue;
		if (snprintf(out, len, "%.*s/%s", (int)dlen, dir, name) >=
		    (int)len)
			continue;
		if (executable(out, why, sizeof(why)) == 0)
			return 0;
	}
	return -1;
}

/* Returns the canonical path of |path|, which must be a regular
 * executable file (the caller frees it), or NULL with |why|. */
static char *
canonical_exe(const char *path, char *why, size_t len)
{
	char *real;

	if ((real = realpath(path, NULL)) == NULL) {
		tc_text_fmt(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (executable(real, why, len) != 0) {
		free(real);
		return NULL;
	}
	return real;
}

/* What running one program takes: the files found, each once. */
struct chain {
	char	**files;
	size_t	  nfiles;
	int	  oom;
};

static int
chain_add(struct chain *ch, const char *path)
{
	if (strv_add(&ch->files, &ch->nfiles, path, 1) != 0) {
		ch->oom = 1;
		return -1;
	}
	return 0;
}

/*
 * Adds to |ch| what the kernel also executes to run |path| (canonical):
 * an ELF's interpreter; a script's #! program and, for env(1), the
 * program it finds in SHELL_PATH; and theirs in turn.  Returns 0, or -1
 * with |why| (|ch| may hold part of the chain).
 */
static int
chain_of(struct chain *ch, const char *path, int depth, char *why,
    size_t len)
{
	char found[PATH_MAX], sub[128], *real = NULL, *target = NULL;
	const char *name;
	struct exe e;
	int rc = -1;

	if (depth >= CHAIN_MAX) {
		tc_text_fmt(why, len, "more than %d interpreters in a row",
		    CHAIN_MAX);
		return -1;
	}
	exe_read(path, &e);
	switch (e.kind) {
	case EXE_BAD:
		tc_text_fmt(why, len, "%s", e.why);
		return -1;
	case EXE_STATIC:
		return 0;
	case EXE_DYNAMIC:
	case EXE_SCRIPT:
		break;
	}
	if (e.interp[0] != '/') {
		tc_text_fmt(why, len, "its interpreter '%s' is not an absolute "
		    "path", e.interp);
		return -1;
	}
	if ((real = canonical_exe(e.interp, sub, sizeof(sub))) == NULL) {
		tc_text_fmt(why, len, "its interpreter %s: %s", e.interp, sub);
		return -1;
	}
	if (chain_add(ch, real) != 0)
		goto out;
	if (chain_of(ch, real, depth + 1, why, len) != 0)
		goto out;
	if (e.kind != EXE_SCRIPT || strcmp(base_name(real), "env") != 0) {
		rc = 0;
		goto out;
	}
	/* "#!/usr/bin/env NAME": env runs NAME, found in the PATH every
	 * program runs with.  The kernel passes the rest of the line as one
	 * argument, so "env -S ..." or "env A=b x" is not followed. */
	name = e.arg;
	if (name[0] == '\0' || name[0] == '-' || strpbrk(name, "= \t") !=
	    NULL) {
		tc_text_fmt(why, len, "its #! line runs env with '%s', which "
		    "cannot be followed: name the interpreter by its path",
		    e.arg);
		goto out;
	}
	if (strchr(name, '/') == NULL) {
		if (search_path(name, found, sizeof(found)) != 0) {
			tc_text_fmt(why, len, "its #! line runs env with '%s', "
			    "not found in %s", name, SHELL_PATH);
			goto out;
		}
		name = found;
	}
	if ((target = canonical_exe(name, sub, sizeof(sub))) == NULL) {
		tc_text_fmt(why, len, "its #! line runs env with %s: %s", name,
		    sub);
		goto out;
	}
	if (chain_add(ch, target) == 0)
		rc = chain_of(ch, target, depth + 1, why, len);
out:
	if (ch->oom)
		tc_text_fmt(why, len, "out of memory");
	free(real);
	free(target);
	return ch->oom ? -1 : rc;
}

/* --- The slot --- */

static void
program_release(struct shell_program *p)
{
	free(p->name);
	free(p->path);
	tc_strv_free(p->subcommands);
	tc_strv_free(p->deny);
	tc_strv_free(p->prefix);
	tc_strv_free(p->helpers);
	tc_strv_free(p->options);
	tc_strv_free(p->exec_also);
}

static void
shell_policy_init(void *slot)
{
	struct shell_policy *sp = slot;

	sp->max_output = OUTPUT_DEFAULT;
}

static void
shell_policy_release(void *slot)
{
	struct shell_policy *sp = slot;
	size_t i;

	for (i = 0; i < sp->nprograms; i++)
		program_release(&sp->programs[i]);
	free(sp->programs);
	tc_strv_free(sp->env_pass);
	tc_strv_free(sp->env_fixed);
	free(sp->home);
	memset(sp, 0, sizeof(*sp));
}

/* Returns the program named |word| in a line of the policy: by its name
 * or its path, resolved or not (one whose line failed included), or
 * NULL. */
static struct shell_program *
program_named(struct shell_policy *sp, const char *word)
{
	size_t i;

	for (i = 0; i < sp->nprograms; i++)
		if (strcmp(sp->programs[i].name, word) == 0 ||
		    (sp->programs[i].path != NULL &&
		    strcmp(sp->programs[i].path, word) == 0))
			return &sp->programs[i];
	return NULL;
}

const struct shell_program *
shell_program_find(const struct shell_policy *sp, const char *name)
{
	const struct shell_program *p;
	struct stat a, b;
	const char *base;
	size_t i;
	int have = 0;

	for (i = 0; sp != NULL && i < sp->nprograms; i++) {
		if (sp->programs[i].path == NULL)
			continue;	/* its line failed: never run */
		if (strcmp(sp->programs[i].name, name) == 0 ||
		    strcmp(sp->programs[i].path, name) == 0)
			return &sp->programs[i];
	}
	/*
	 * Another absolute path to the same file, under the same name:
	 * /bin/echo for the /usr/bin/echo that "program echo" found, where
	 * /bin leads to /usr/bin.  Its path is what runs, so nothing but the
	 * program the policy allows is executed whatever |name| leads to
	 * later.  The name must match, so that a multi-call program's links
	 * (/bin/rm, a hard link of the /bin/ls allowed) do not pass for it;
	 * and only a path ending in such a name is looked at.
	 */
	if (sp == NULL || name[0] != '/' || *(base = base_name(name)) == '\0')
		return NULL;
	for (i = 0; i < sp->nprograms; i++) {
		p = &sp->programs[i];
		if (p->path == NULL || (strcmp(base_name(p->path), base) != 0 &&
		    strcmp(base_name(p->name), base) != 0))
			continue;
		if (!have && (stat(name, &a) != 0 || !S_ISREG(a.st_mode)))
			return NULL;
		have = 1;
		if (stat(p->path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return p;
	}
	return NULL;
}

/* Records the chain |ch| in |p|: its files in exec_also.  Returns 0 or
 * -1. */
static int
take_chain(struct shell_program *p, const struct chain *ch)
{
	size_t n = strv_len(p->exec_also), i;

	for (i = 0; i < ch->nfiles; i++)
		if (strv_add(&p->exec_also, &n, ch->files[i], 1) != 0)
			return -1;
	return 0;
}

/*
 * program NAME|PATH [read-only]: a bare NAME is looked up in SHELL_PATH;
 * a path (absolute or ~/) is taken as it is.  Either is made canonical
 * and must be a regular executable file that the kernel can run: an ELF
 * of this machine or a #! script.
 */
static void
kw_program(struct tc_policy_ctx *c, char **w, int nw)
{
	struct shell_policy *sp = tc_policy_ctx_slot(c);
	struct shell_program *np, *p, *other;
	struct chain ch = { NULL, 0, 0 };
	char found[PATH_MAX], why[PATH_MAX + 128], *given = NULL, *name;
	size_t i;

	if (nw < 1) {
		tc_policy_error(c, "program: missing the program: write a "
		    "name found in %s, or an absolute path", SHELL_PATH);
		return;
	}
	if (nw > 2 || (nw == 2 && strcmp(w[1], "read-only") != 0)) {
		tc_policy_error(c, "program %s: unexpected '%s' (only "
		    "'read-only' may follow the program)", w[0], w[1]);
		return;
	}
	if (strchr(w[0], '/') == NULL && w[0][0] != '~' &&
	    (strcmp(w[0], ".") == 0 || strcmp(w[0], "..") == 0 ||
	    w[0][0] == '\0')) {
		tc_policy_error(c, "program: '%s' is not a program's name",
		    w[0]);
		return;
	}
	if ((np = reallocarray(sp->programs, sp->nprograms + 1,
	    sizeof(*np))) == NULL) {
		tc_policy_error(c, "out of memory");
		return;
	}
	sp->programs = np;
	p = &np[sp->nprograms];
	memset(p, 0, sizeof(*p));
	p->line = tc_policy_ctx_line(c);
	p->readonly = nw == 2;
	if ((p->name = strdup(w[0])) == NULL) {
		tc_policy_error(c, "out of memory");
		return;
	}
	sp->nprograms++;
	/* From here on the program is kept, resolved or not, so that its
	 * args lines are read without an error of their own. */
	if (strchr(w[0], '/') != NULL || w[0][0] == '~') {
		if ((given = tc_policy_path(c, "program", w[0])) == NULL)
			return;
		/* Named by the path a call can write: "~/" expanded. */
		free(p->name);
		p->name = given;
		given = NULL;
		name = p->name;
	} else {
		if (search_path(w[0], found, sizeof(found)) != 0) {
			tc_policy_error(c, "program %s: not found in %s (or not "
			    "executable): install it, or write its absolute "
			    "path", w[0], SHELL_PATH);
			return;
		}
		name = found;
	}
	if ((p->path = canonical_exe(name, why, sizeof(why))) == NULL) {
		tc_policy_error(c, "program %s: %s", w[0], why);
		goto out;
	}
	for (i = 0; i + 1 < sp->nprograms; i++) {
		other = &sp->programs[i];
		if (strcmp(other->name, p->name) == 0) {
			tc_policy_error(c, "program %s: already allowed at "
			    "line %d", w[0], other->line);
			goto fail;
		}
		if (other->path != NULL && strcmp(other->path, p->path) == 0) {
			tc_policy_error(c, "program %s: %s is already allowed "
			    "as '%s' at line %d", w[0], p->path, other->name,
			    other->line);
			goto fail;
		}
	}
	if (chain_of(&ch, p->path, 0, why, sizeof(why)) != 0) {
		tc_policy_error(c, "program %s: %s: %s", w[0], p->path, why);
		goto fail;
	}
	if (take_chain(p, &ch) != 0) {
		tc_policy_error(c, "out of memory");
		goto fail;
	}
	p->interpreter = shell_is_interpreter(p->name) ||
	    shell_is_interpreter(p->path);
	goto out;
fail:
	/* Kept by name, never run. */
	free(p->path);
	p->path = NULL;
out:
	tc_strv_free(ch.files);
	free(given);
}

/* --- args --- */

/* In the order of enum shell_args_kind. */
static const struct tc_policy_choice args_kinds[] = {
	{ "subcommands", "the first operand must be one of the words" },
	{ "options", "every option must match one of the patterns" },
	{ "deny", "no argument may match one of the patterns" },
	{ "no-dash-operands", "no operand after '--' may start with '-'" },
	{ "prefix", "arguments put first, after the program" },
	{ "helpers", "other programs, or directories of them, it may "
	  "start" },
	{ NULL, NULL }
};

/* Checks and adds the patterns |w| to |*v|. */
static void
args_patterns(struct tc_policy_ctx *c, const char *what, char ***v,
    char **w, int nw, int options)
{
	char why[256];
	size_t n = 0;
	int i;

	for (i = 0; i < nw; i++) {
		if (!tc_glob_valid_string(w[i], why, sizeof(why))) {
			tc_policy_error(c, "%s: '%s': %s", what, w[i], why);
			continue;
		}
		if (options && w[i][0] != '-') {
			tc_policy_error(c, "%s: '%s' does not start with '-': "
			    "it would match no option", what, w[i]);
			continue;
		}
		if (strv_add(v, &n, w[i], 1) != 0) {
			tc_policy_error(c, "out of memory");
			return;
		}
	}
}

static void
args_subcommands(struct tc_policy_ctx *c, const char *what,
    struct shell_program *p, char **w, int nw)
{
	size_t n = 0, j;
	int i;

	for (i = 0; i < nw; i++) {
		if (w[i][0] == '-' || w[i][0] == '\0') {
			tc_policy_error(c, "%s: '%s' is no subcommand: the "
			    "subcommand is the first argument that does not "
			    "start with '-'", what, w[i]);
			continue;
		}
		for (j = 0; j < n; j++)
			if (strcmp(p->subcommands[j], w[i]) == 0)
				break;
		if (j < n) {
			tc_policy_error(c, "%s: '%s' is listed twice", what,
			    w[i]);
			continue;
		}
		if (strv_add(&p->subcommands, &n, w[i], 0) != 0) {
			tc_policy_error(c, "out of memory");
			return;
		}
	}
}

/* Adds the helpers |w|: executable files, or directories whose files
 * the program may start; what they run with joins exec_also. */
static void
args_helpers(struct tc_policy_ctx *c, const char *what,
    struct shell_program *p, char **w, int nw);

static void
kw_args(struct tc_policy_ctx *c, char **w, int nw)
{
	struct shell_policy *sp = tc_policy_ctx_slot(c);
	struct shell_program *p;
	char what[256], *path;
	size_t n = 0;
	int kind, i;

	if (nw < 2) {
		tc_policy_error(c, "args: write 'args PROGRAM KIND ...', KIND "
		    "one of subcommands, options, deny, no-dash-operands, "
		    "prefix, helpers");
		return;
	}
	if (strncmp(w[0], "~/", 2) == 0) {
		if ((path = tc_policy_path(c, "args", w[0])) == NULL)
			return;
		p = program_named(sp, path);
		free(path);
	} else
		p = program_named(sp, w[0]);
	if (p == NULL) {
		tc_policy_error(c, "args %s: no 'program %s' line above this "
		    "one", w[0], w[0]);
		return;
	}
	tc_text_fmt(what, sizeof(what), "args %s %s", w[0], w[1]);
	if ((kind = tc_policy_choose(c, what, args_kinds, w[1])) < 0)
		return;
	if (p->args_line[kind] > 0) {
		tc_policy_error(c, "%s: already given at line %d (one line "
		    "of each kind per program)", what, p->args_line[kind]);
		return;
	}
	p->args_line[kind] = tc_policy_ctx_line(c);
	w += 2;
	nw -= 2;
	if (kind == SHELL_ARGS_NO_DASH_OPERANDS) {
		if (nw > 0)
			tc_policy_error(c, "%s: unexpected '%s' at the end of "
			    "the line", what, w[0]);
		else
			p->no_dash_operands = 1;
		return;
	}
	if (nw == 0) {
		tc_policy_error(c, "%s: missing its %s", what,
		    kind == SHELL_ARGS_SUBCOMMANDS ? "words" :
		    kind == SHELL_ARGS_PREFIX ? "arguments" :
		    kind == SHELL_ARGS_HELPERS ? "paths" : "patterns");
		return;
	}
	switch ((enum shell_args_kind)kind) {
	case SHELL_ARGS_SUBCOMMANDS:
		args_subcommands(c, what, p, w, nw);
		break;
	case SHELL_ARGS_OPTIONS:
		args_patterns(c, what, &p->options, w, nw, 1);
		break;
	case SHELL_ARGS_DENY:
		args_patterns(c, what, &p->deny, w, nw, 0);
		break;
	case SHELL_ARGS_PREFIX:
		for (i = 0; i < nw; i++)
			if (strv_add(&p->prefix, &n, w[i], 0) != 0) {
				tc_policy_error(c, "out of memory");
				return;
			}
		break;
	case SHELL_ARGS_HELPERS:
		args_helpers(c, what, p, w, nw);
		break;
	case SHELL_ARGS_NO_DASH_OPERANDS:
	case SHELL_ARGS_NKINDS:
		break;
	}
}

/* The walk of a helpers directory (nftw(3) has no context argument). */
static struct {
	struct chain	 ch;
	size_t		 files;
} walk;

static int
walk_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	char why[PATH_MAX];

	if (ftw->level > HELPERS_DEPTH || ++walk.files > HELPERS_FILES)
		return 1;
	/* Only the files a helper's exec reaches: regular and executable.
	 * One that cannot be told how to run is left out: without its
	 * interpreter's execute right the kernel refuses to run it, which
	 * fails closed. */
	if (type == FTW_F && S_ISREG(st->st_mode) && (st->st_mode & 0111))
		(void)chain_of(&walk.ch, path, 0, why, sizeof(why));
	return walk.ch.oom ? 2 : 0;
}

static void
args_helpers(struct tc_policy_ctx *c, const char *what,
    struct shell_program *p, char **w, int nw)
{
	char why[PATH_MAX + 128], *path, *real;
	size_t n = strv_len(p->helpers);
	struct stat st;
	int i, rc;

	for (i = 0; i < nw; i++) {
		if ((path = tc_policy_path(c, what, w[i])) == NULL)
			continue;
		real = realpath(path, NULL);
		free(path);
		if (real == NULL) {
			tc_policy_error(c, "%s: %s: %s", what, w[i],
			    strerror(errno));
			continue;
		}
		memset(&walk, 0, sizeof(walk));
		if (stat(real, &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = nftw(real, walk_one, 16, FTW_PHYS);
			if (rc == 1)
				tc_policy_error(c, "%s: %s: more than %d files "
				    "or %d levels beneath it", what, w[i],
				    HELPERS_FILES, HELPERS_DEPTH);
			else if (rc != 0)
				tc_policy_error(c, "%s: %s: %s", what, w[i],
				    walk.ch.oom ? "out of memory" :
				    strerror(errno));
		} else if (executable(real, why, sizeof(why)) != 0) {
			tc_policy_error(c, "%s: %s: %s (a helper is an "
			    "executable file or a directory)", what, w[i],
			    why);
			rc = -1;
		} else if ((rc = chain_of(&walk.ch, real, 0, why,
		    sizeof(why))) != 0)
			tc_policy_error(c, "%s: %s: %s", what, w[i], why);
		if (rc == 0 && (take_chain(p, &walk.ch) != 0 ||
		    strv_add(&p->helpers, &n, real, 1) != 0))
			tc_policy_error(c, "out of memory");
		tc_strv_free(walk.ch.files);
		memset(&walk, 0, sizeof(walk));
		free(real);
	}
}

/* --- The environment --- */

/* env PATTERN...: the names a call may set. */
static void
kw_env(struct tc_policy_ctx *c, char **w, int nw)
{
	struct shell_policy *sp = tc_policy_ctx_slot(c);
	const char *q;
	char why[256];
	size_t n = 0;
	int i;

	if (nw < 1) {
		tc_policy_error(c, "env: missing the names a call may set "
		    "(patterns allowed: LC_*)");
		return;
	}
	if (tc_policy_once(c) != 0)
		return;
	for (i = 0; i < nw; i++) {
		if (!tc_glob_valid_string(w[i], why, sizeof(why))) {
			tc_policy_error(c, "env: '%s': %s", w[i], why);
			continue;
		}
		if (w[i][literal_len(w[i])] == '\0' &&
		    !env_name_ok(w[i], strlen(w[i]))) {
			tc_policy_error(c, "env: '%s' is not a variable's name "
			    "(letters, digits and '_', not first a digit)",
			    w[i]);
			continue;
		}
		q = w[i][literal_len(w[i])] == '\0' ? env_refused(w[i]) :
		    env_pattern_refused(w[i]);
		if (q != NULL && (strcmp(q, "PATH") == 0 ||
		    strcmp(q, "HOME") == 0)) {
			tc_policy_error(c, "env: '%s' %s %s, which the server "
			    "sets (PATH to %s, HOME by 'home')", w[i],
			    strcmp(w[i], q) == 0 ? "is" : "could match", q,
			    SHELL_PATH);
			continue;
		}
		if (q != NULL && strcmp(w[i], q) == 0) {
			tc_policy_error(c, "env: '%s' is never passed: a "
			    "program it reaches would load code or "
			    "configuration from where it says, or run a "
			    "command", w[i]);
			continue;
		}
		if (q != NULL) {
			tc_policy_error(c, "env: '%s' %s '%s', names that are "
			    "never passed (see toolcell-policy(5)); name the "
			    "variables, or start the pattern with more of "
			    "their name", w[i], w[i][literal_len(w[i])] ==
			    '\0' ? "is one of" : "could match", q);
			continue;
		}
		if (strv_add(&sp->env_pass, &n, w[i], 1) != 0) {
			tc_policy_error(c, "out of memory");
			return;
		}
	}
}

/* env-set NAME=VALUE...: set for every program; a call cannot change
 * them. */
static void
kw_env_set(struct tc_policy_ctx *c, char **w, int nw)
{
	struct shell_policy *sp = tc_policy_ctx_slot(c);
	const char *eq, *q;
	size_t n = 0, j, len;
	char *name;
	int i;

	if (nw < 1) {
		tc_policy_error(c, "env-set: missing NAME=VALUE");
		return;
	}
	if (tc_policy_once(c) != 0)
		return;
	for (i = 0; i < nw; i++) {
		if ((eq = strchr(w[i], '=')) == NULL ||
		    !env_name_ok(w[i], (size_t)(eq - w[i]))) {
			tc_policy_error(c, "env-set: '%s' is not NAME=VALUE "
			    "(NAME letters, digits and '_', not first a "
			    "digit)", w[i]);
			continue;
		}
		len = (size_t)(eq - w[i]);
		for (j = 0; j < n; j++)
			if (strncmp(sp->env_fixed[j], w[i], len + 1) == 0)
				break;
		if (j < n) {
			tc_policy_error(c, "env-set: %.*s is set twice",
			    (int)len, w[i]);
			continue;
		}
		if ((name = strndup(w[i], len)) == NULL) {
			tc_policy_error(c, "out of memory");
			return;
		}
		q = env_refused(name);
		if (q != NULL) {
			if (strcmp(q, "PATH") == 0 || strcmp(q, "HOME") == 0)
				tc_policy_error(c, "env-set: %s is the "
				    "server's to set (PATH to %s, HOME by "
				    "'home')", name, SHELL_PATH);
			else
				tc_policy_error(c, "env-set: %s is never "
				    "passed (it is one of '%s'): a program it "
				    "reaches would load code or configuration "
				    "from where it says, or run a command",
				    name, q);
			free(name);
			continue;
		}
		free(name);
		if (strv_add(&sp->env_fixed, &n, w[i], 0) != 0) {
			tc_policy_error(c, "out of memory");
			return;
		}
	}
}

/* home PATH|scratch */
static void
kw_home(struct tc_policy_ctx *c, char **w, int nw)
{
	struct shell_policy *sp = tc_policy_ctx_slot(c);
	struct stat st;
	char *path, *real;

	if (nw == 0) {
		tc_policy_error(c, "home: missing a directory, or 'scratch' "
		    "(a new one for each call)");
		return;
	}
	if (nw > 1) {
		tc_policy_error(c, "home: unexpected '%s' at the end of the "
		    "line", w[1]);
		return;
	}
	if (tc_policy_once(c) != 0 || strcmp(w[0], "scratch") == 0)
		return;
	if ((path = tc_policy_path(c, "home", w[0])) == NULL)
		return;
	real = realpath(path, NULL);
	free(path);
	if (real == NULL || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		tc_policy_error(c, "home: %s: %s", w[0], real == NULL ?
		    strerror(errno) : "not a directory");
		free(real);
		return;
	}
	sp->home = real;
}

/* Checks what needs the whole section: names both in env and env-set. */
static void
shell_policy_check(struct tc_policy_ctx *c)
{
	struct shell_policy *sp = tc_policy_ctx_slot(c);
	char **v, **e;
	size_t n;

	for (v = sp->env_fixed; v != NULL && *v != NULL; v++) {
		n = strcspn(*v, "=");
		for (e = sp->env_pass; e != NULL && *e != NULL; e++)
			if (strncmp(*e, *v, n) == 0 && (*e)[n] == '\0')
				tc_policy_error(c, "env %s: env-set fixes it: a "
				    "call cannot change it", *e);
	}
}

/* --- The repositories beneath the writable roots --- */

/* ".git", and the user's own git configuration, absolute. */
static char	 config_paths[3][PATH_MAX];
static const char *kept[5] = { ".git" };

/* The user's home, canonical, as git finds it; "" where there is none. */
static char	 home_dir[PATH_MAX];

/* Adds |a|/|b| to kept[] at *|n|, canonical where it can be (a root's
 * path is), unless it does not fit or is there. */
static void
add_config(size_t *n, const char *a, const char *b)
{
	char *p = config_paths[*n - 1], real[PATH_MAX], whole[PATH_MAX];
	size_t i;

	if (realpath(a, real) != NULL)
		a = real;
	if (snprintf(whole, sizeof(whole), "%s/%s", a, b) >= PATH_MAX)
		return;
	/* A link (a dotfiles checkout's): what git reads is its target,
	 * kept where it lies; the link itself, if a call may write where it
	 * is, the home warning speaks of. */
	if (realpath(whole, p) == NULL)
		memcpy(p, whole, strlen(whole) + 1);
	for (i = 1; i < *n; i++)
		if (strcmp(kept[i], p) == 0)
			return;
	kept[(*n)++] = p;
}

/* Finds the names once: see shell_read_only(). */
static void
find_names(void)
{
	static int found;
	const char *home, *xdg;
	struct passwd *pw;
	size_t n = 1;

	if (found)
		return;
	found = 1;
	home = getenv("HOME");
	if ((home == NULL || home[0] != '/') &&
	    (pw = getpwuid(geteuid())) != NULL)
		home = pw->pw_dir;
	if (home != NULL && home[0] == '/' && home[1] != '\0') {
		if (realpath(home, home_dir) == NULL)
			snprintf(home_dir, sizeof(home_dir), "%s", home);
		add_config(&n, home, ".gitconfig");
		if ((xdg = getenv("XDG_CONFIG_HOME")) == NULL ||
		    xdg[0] != '/')
			add_config(&n, home, ".config/git");
	}
	if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && xdg[0] == '/')
		add_config(&n, xdg, "git");
	kept[n] = NULL;
}

/*
 * The names each child keeps (profile.h, read_only): NULL with
 * "repositories writable".  The user's configuration is where git looks
 * for it: $HOME/.gitconfig, and $XDG_CONFIG_HOME/git or, without it,
 * $HOME/.config/git; HOME from the password database where the
 * environment has none.  Found once, in the server, which reads its
 * environment before it scrubs it.
 */
const char *const *
shell_read_only(const struct tc_policy *pol)
{
	if (shell_policy(pol)->repositories != SHELL_REPOS_READ_ONLY)
		return NULL;
	find_names();
	return kept;
}

const char *
shell_home(void)
{
	find_names();
	return home_dir;
}


/* Whether |dir| (beneath |at|, "" for |at| itself) holds a ".git" that
 * is a directory or a file, not followed if a symbolic link. */
static int
has_git(int at, const char *dir)
{
	char path[PATH_MAX];
	struct stat st;
	int n;

	n = snprintf(path, sizeof(path), "%s%s.git", dir, *dir ? "/" : "");
	return n > 0 && (size_t)n < sizeof(path) &&
	    fstatat(at, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *
shell_repos_list(const struct tc_root *r, char *list, size_t size)
{
	char **names = NULL, **more;
	size_t n = 0, cap = 0, i, len;
	struct dirent *e;
	DIR *dir;
	int fd;

	*list = '\0';
	if (r->fd < 0 || (fd = openat(r->fd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return list;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return list;
	}
	while ((e = readdir(dir)) != NULL) {
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
		    strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    !has_git(dirfd(dir), e->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			if ((more = reallocarray(names, cap,
			    sizeof(*names))) == NULL)
				break;
			names = more;
		}
		if ((names[n] = strdup(e->d_name)) == NULL)
			break;
		n++;
	}
	closedir(dir);
	if (n > 0)
		qsort(names, n, sizeof(*names), name_cmp);
	/* The top first, then by name. */
	len = 0;
	if (has_git(r->fd, ""))
		len += tc_text_fmt(list, size, ".git");
	for (i = 0; i < n && i + (len > 0) < SHELL_REPOS_SHOWN; i++)
		len += tc_text_fmt(list + len, size - len, "%s%s/.git",
		    len > 0 ? ", " : "", names[i]);
	if (i < n)
		tc_text_fmt(list + len, size - len, " and %zu more", n - i);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return list;
}

/* The repositories' setting, and, read-only, what each call's child
 * binds now. */
static void
print_repos(const struct tc_policy *pol, const struct shell_policy *sp,
    FILE *f)
{
	char list[SHELL_REPOS_SHOWN * (NAME_MAX + 8) + 64];
	const char *const *name;
	const struct tc_root *r;
	struct stat st;
	char at[32];
	size_t i;

	fprintf(f, "repositories: %s  (%s)\n", sp->repositories ==
	    SHELL_REPOS_WRITABLE ? "writable" : "read-only", tc_policy_origin(
	    tc_policy_setting_at(pol, "repositories"), at, sizeof(at)));
	if (sp->repositories == SHELL_REPOS_WRITABLE)
		return;
	fprintf(f, "  (the .git at the top of each writable directory and "
	    "one level down, bound read-only in each call's own mount "
	    "namespace, with their checked-out submodules' and the "
	    "directories on the way; one made while the server runs is "
	    "held from the next call on; deeper ones are not looked for)\n");
	for (i = 0; i < pol->nroots; i++) {
		r = &pol->roots[i];
		if (!(r->flags & TC_ROOT_WRITE) ||
		    *shell_repos_list(r, list, sizeof(list)) == '\0')
			continue;
		fprintf(f, "  %s: %s\n", r->path, list);
	}
	/* The user's own configuration, where a writable root holds it. */
	for (name = shell_read_only(pol); name != NULL && *name != NULL;
	    name++) {
		if (**name != '/' || lstat(*name, &st) != 0)
			continue;
		for (i = 0; i < pol->nroots; i++)
			if ((pol->roots[i].flags & TC_ROOT_WRITE) &&
			    tc_path_beneath(*name, pol->roots[i].path) != NULL)
				break;
		if (i < pol->nroots)
			fprintf(f, "  %s  (your git configuration)\n", *name);
	}
}

/* --- --check --- */

/* Writes |w| as a policy would: quoted if it has to be. */
static void
put_word(FILE *f, const char *w)
{
	const char *s;

	if (w[0] != '\0' && strpbrk(w, " \t\"\\") == NULL && w[0] != '#') {
		fputs(w, f);
		return;
	}
	fputc('"', f);
	for (s = w; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void
put_words(FILE *f, char *const *v)
{
	for (; v != NULL && *v != NULL; v++) {
		fputc(' ', f);
		put_word(f, *v);
	}
}

/* Returns 1 if |v| holds what looks like an ELF interpreter, by name. */
static int
has_loader(char *const *v)
{
	static const char *const loaders[] = { "ld-*", "ld.so*" };

	for (; v != NULL && *v != NULL; v++)
		if (name_in(base_name(*v), loaders, TC_NITEMS(loaders)))
			return 1;
	return 0;
}

static const char *const kept_by_kernel =
	"only the kernel sandbox limits what it runs";

static void
print_program(const struct shell_program *p, FILE *f)
{
	static const char *const kinds[] = {
		[SHELL_ARGS_SUBCOMMANDS] = "subcommands",
		[SHELL_ARGS_OPTIONS] = "options",
		[SHELL_ARGS_DENY] = "deny",
		[SHELL_ARGS_NO_DASH_OPERANDS] = "no-dash-operands",
		[SHELL_ARGS_PREFIX] = "prefix",
		[SHELL_ARGS_HELPERS] = "helpers",
	};
	char *const *lists[] = {
		[SHELL_ARGS_SUBCOMMANDS] = p->subcommands,
		[SHELL_ARGS_OPTIONS] = p->options,
		[SHELL_ARGS_DENY] = p->deny,
		[SHELL_ARGS_NO_DASH_OPERANDS] = NULL,
		[SHELL_ARGS_PREFIX] = p->prefix,
		[SHELL_ARGS_HELPERS] = p->helpers,
	};
	char *const *v;
	int k;

	fprintf(f, "  %s  %s  (line %d)%s\n", p->name, p->path, p->line,
	    p->readonly ? "  read-only" : "");
	if (p->interpreter)
		fprintf(f, "    a shell or an interpreter: %s\n",
		    kept_by_kernel);
	else if (is_runner(p->name) || is_runner(p->path))
		fprintf(f, "    it starts other programs: the argument rules "
		    "of what it starts do not apply, only the kernel's list "
		    "of what may run\n");
	if (p->exec_also != NULL) {
		fprintf(f, "    also executes:");
		put_words(f, p->exec_also);
		fprintf(f, "\n");
	}
	for (v = p->exec_also; v != NULL && *v != NULL; v++)
		if (shell_is_interpreter(*v))
			fprintf(f, "    %s is a shell or an interpreter that "
			    "every program here may start: %s\n", *v,
			    kept_by_kernel);
	for (k = 0; k < SHELL_ARGS_NKINDS; k++) {
		if (p->args_line[k] == 0)
			continue;
		fprintf(f, "    %s", kinds[k]);
		put_words(f, lists[k]);
		fprintf(f, "  (line %d)\n", p->args_line[k]);
	}
	if (p->subcommands == NULL && p->options == NULL && p->deny == NULL)
		fprintf(f, "    any arguments\n");
}

/*
 * What holds a call's processes to 'limit processes' (known once the
 * sandbox is prepared, as it is before --check prints): each call's own
 * pids cgroup, and RLIMIT_NPROC in the call's user namespace for calls
 * that do not run as root (the kernel never holds uid 0 to it).
 */
static void
print_nproc(const struct tc_policy *pol, FILE *f)
{
	const struct tc_pids *cg = tc_pids_current();
	int root = !pol->run_as && geteuid() == 0;
	char where[PATH_MAX + 64];
	struct tc_limits l;
	const char *sep;
	size_t i;

	if (cg != NULL) {
		fprintf(f, "process limit: %s, each call's own (pids.max %lu%s",
		    tc_pids_str(cg, where, sizeof(where)), cg->max, cg->kept ?
		    ": the limit and the call's keeper" : "");
		/* A tool's own limit is its calls' pids.max (run.c). */
		for (i = 0, sep = "; a tool's own: "; i < pol->ntools; i++) {
			if (!pol->tools[i].enabled)
				continue;
			tc_policy_limits(pol, pol->tools[i].name, &l);
			if (tc_pids_max(l.nproc, cg->kept) == cg->max)
				continue;
			fprintf(f, "%s%s %lu", sep, pol->tools[i].name,
			    tc_pids_max(l.nproc, cg->kept));
			sep = ", ";
		}
		fprintf(f, ")%s\n", root ? "" : "; and RLIMIT_NPROC in the "
		    "call's user namespace");
	} else if (!root)
		fprintf(f, "process limit: RLIMIT_NPROC in the call's user "
		    "namespace\n");
	else
		fprintf(f, "process limit: none: calls run as root, whom "
		    "RLIMIT_NPROC does not hold, and no pids cgroup may be "
		    "made here\n");
}

void
shell_policy_print_programs(const struct tc_policy *pol, FILE *f)
{
	const struct shell_policy *sp = shell_policy(pol);
	size_t i;

	fprintf(f, "programs:%s\n", sp->nprograms == 0 ? " none" : "");
	for (i = 0; i < sp->nprograms; i++)
		if (sp->programs[i].path != NULL)
			print_program(&sp->programs[i], f);
	for (i = 0; i < sp->nprograms; i++)
		if (has_loader(sp->programs[i].exec_also))
			break;
	if (i < sp->nprograms)
		fprintf(f, "  note: an ELF interpreter (ld.so) is executable as "
		    "well; run directly, \"ld.so FILE\", it runs any ELF file "
		    "a call can read, so the list above holds only as far as "
		    "what may be read and what starts programs of its own "
		    "choosing do\n");
}

static void
shell_policy_print(const struct tc_policy *pol, const void *slot, FILE *f)
{
	const struct shell_policy *sp = slot;
	char at[32], val[32];

	shell_policy_print_programs(pol, f);
	fprintf(f, "program environment:\n");
	fprintf(f, "  PATH  %s  (fixed)\n", SHELL_PATH);
	if (sp->home != NULL)
		fprintf(f, "  HOME  %s  (%s)\n", sp->home, tc_policy_origin(
		    tc_policy_setting_at(pol, "home"), at, sizeof(at)));
	else
		fprintf(f, "  HOME  a new scratch directory for each call  "
		    "(%s)\n", tc_policy_origin(tc_policy_setting_at(pol,
		    "home"), at, sizeof(at)));
	fprintf(f, "  a call may set:");
	if (sp->env_pass == NULL)
		fprintf(f, " nothing");
	put_words(f, sp->env_pass);
	fprintf(f, "  (%s)\n", tc_policy_origin(tc_policy_setting_at(pol,
	    "env"), at, sizeof(at)));
	if (sp->env_fixed != NULL) {
		fprintf(f, "  set for every program:");
		put_words(f, sp->env_fixed);
		fprintf(f, "  (%s)\n", tc_policy_origin(tc_policy_setting_at(
		    pol, "env-set"), at, sizeof(at)));
	}
	fprintf(f, "output: %s per stream, stdout and stderr each  (%s)\n",
	    tc_policy_value_str(TC_POLICY_SIZE, sp->max_output, val,
	    sizeof(val)), tc_policy_origin(tc_policy_setting_at(pol,
	    "output"), at, sizeof(at)));
	print_nproc(pol, f);
	print_repos(pol, sp, f);
}

static const struct tc_policy_choice repos_choices[] = {
	{ "read-only", "the default: git reads them, never commits" },
	{ "writable", "calls may commit, and change hooks and "
	  "configuration that git runs outside the sandbox" },
	{ NULL, NULL }
};

/* A CHOICE is stored as an int. */
_Static_assert(sizeof(enum shell_repos) == sizeof(int), "an int");

/* This has to be sorted always: it is searched with bsearch(3). */
static const struct tc_policy_keyword shell_keywords[] = {
	{ "args", TC_POLICY_LINE, .parse = kw_args,
	  .max_words = TC_POLICY_WORDS_MAX },
	{ "env", TC_POLICY_LINE, .parse = kw_env,
	  .max_words = TC_POLICY_WORDS_MAX },
	{ "env-set", TC_POLICY_LINE, .parse = kw_env_set,
	  .max_words = TC_POLICY_WORDS_MAX },
	{ "home", TC_POLICY_LINE, .parse = kw_home },
	{ "output", TC_POLICY_SIZE, offsetof(struct shell_policy, max_output),
	  .min = OUTPUT_MIN, .max = OUTPUT_MAX },
	{ "program", TC_POLICY_LINE, .parse = kw_program },
	{ "repositories", TC_POLICY_CHOICE,
	  offsetof(struct shell_policy, repositories),
	  .choices = repos_choices },
};

const struct tc_policy_section shell_policy_section = {
	.name = "shell",
	.keywords = shell_keywords,
	.nkeywords = TC_NITEMS(shell_keywords),
	.size = sizeof(struct shell_policy),
	.init = shell_policy_init,
	.release = shell_policy_release,
	.check = shell_policy_check,
	.print = shell_policy_print,
	/* The programs are what it serves: directories are optional. */
	.flags = TC_POLICY_ROOTS_OPTIONAL,
};

const struct shell_policy *
shell_policy(const struct tc_policy *pol)
{
	static const struct shell_policy defaults = {
		.max_output = OUTPUT_DEFAULT,
	};
	const struct shell_policy *sp;

	sp = pol != NULL ? tc_policy_slot(pol, &shell_policy_section) : NULL;
	return sp != NULL ? sp : &defaults;
}

/* --- Once the roots are known --- */

/* Returns the writable root of |roots| that |path| lies beneath, or that
 * lies beneath |path| (a helpers directory is executable with all that
 * is in it), or NULL. */
static const struct tc_root *
writable_above(const struct tc_root *roots, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((roots[i].flags & TC_ROOT_WRITE) &&
		    (tc_path_beneath(path, roots[i].path) != NULL ||
		    tc_path_beneath(roots[i].path, path) != NULL))
			return &roots[i];
	return NULL;
}

/* Here, not in shell_scratch.c, so that what links the policy alone
 * (test-shellrules) has it. */
const char *
shell_scratch_tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > PATH_MAX / 2)
		return "/tmp";
	return tmp;
}

/* Returns 1 if the calls' scratch directories, which they write in, would
 * lie beneath |path| (canonical): in shell_scratch_tmpdir(), which may be
 * named through links.  Where it cannot be made canonical (it is not
 * there yet), as it is written. */
static int
scratch_beneath(const char *path)
{
	const char *tmp = shell_scratch_tmpdir();
	char real[PATH_MAX];

	if (tc_path_beneath(tmp, path) != NULL)
		return 1;
	return realpath(tmp, real) != NULL &&
	    tc_path_beneath(real, path) != NULL;
}

/* Reports |path|, |what| of program |p|, if it lies beneath a writable
 * root of |pol|; returns 1 if it did. */
static int
verify_one(const struct tc_policy *pol, const struct shell_program *p,
    const char *what, const char *path, tc_policy_report_fn *report,
    void *ctx)
{
	const struct tc_root *r;
	char msg[PATH_MAX * 3], at[32];

	if ((r = writable_above(pol->roots, pol->nroots, path)) == NULL &&
	    (r = writable_above(pol->ceiling, pol->nceiling, path)) == NULL) {
		if (!scratch_beneath(path))
			return 0;
		tc_text_fmt(msg, sizeof(msg), "program %s (line %d): %s %s "
		    "holds the calls' scratch directories, which they write "
		    "in: a call could run what it wrote", p->name, p->line,
		    what, path);
		if (report != NULL)
			report(ctx, msg);
		return 1;
	}
	tc_text_fmt(msg, sizeof(msg), tc_path_beneath(path, r->path) !=
	    NULL ? "program %s (line %d): %s %s lies beneath the writable "
	    "directory %s (%s): a call could replace what it runs" :
	    "program %s (line %d): %s %s holds the writable directory %s "
	    "(%s): a call could run what it wrote there", p->name, p->line,
	    what, path, r->path,
	    tc_policy_origin(r->line > 0 ? r->line : TC_SET_CMDLINE, at,
	    sizeof(at)));
	if (report != NULL)
		report(ctx, msg);
	return 1;
}

int
shell_policy_verify(const struct tc_policy *pol, tc_policy_report_fn *report,
    void *ctx)
{
	const struct shell_policy *sp = shell_policy(pol);
	const struct shell_program *p;
	char *const *v;
	size_t i;
	int n = 0;

	for (i = 0; i < sp->nprograms; i++) {
		p = &sp->programs[i];
		if (p->path == NULL)
			continue;
		n += verify_one(pol, p, "its file", p->path, report, ctx);
		for (v = p->helpers; v != NULL && *v != NULL; v++)
			n += verify_one(pol, p, "its helper", *v, report, ctx);
		for (v = p->exec_also; v != NULL && *v != NULL; v++)
			n += verify_one(pol, p, "what it runs with", *v,
			    report, ctx);
	}
	return n;
}

/* Returns 1 if the forced prefix |v| holds --jitless, with which node
 * runs its interpreter alone; else 0. */
static int
prefix_jitless(char *const *v)
{
	for (; v != NULL && *v != NULL; v++)
		if (strcmp(*v, "--jitless") == 0)
			return 1;
	return 0;
}

int
shell_policy_jit_warn(const struct tc_policy *pol, const char *file,
    tc_policy_report_fn *report, void *ctx)
{
	const struct shell_policy *sp = shell_policy(pol);
	const struct shell_program *p;
	char msg[PATH_MAX * 2 + 512], fix[PATH_MAX + 128];
	char *const *v;
	size_t i;
	int n = 0;

	for (i = 0; !pol->jit && i < sp->nprograms; i++) {
		p = &sp->programs[i];
		if (p->path == NULL)
			continue;	/* not found: nothing to run */
		if (is_node(p->path)) {
			if (prefix_jitless(p->prefix))
				continue;
			/* One prefix line per program: add to it. */
			if (p->args_line[SHELL_ARGS_PREFIX] > 0)
				tc_text_fmt(fix, sizeof(fix), "add --jitless "
				    "to its prefix (line %d)",
				    p->args_line[SHELL_ARGS_PREFIX]);
			else
				tc_text_fmt(fix, sizeof(fix), "run it without "
				    "one with 'args %s prefix --jitless'",
				    p->name);
			tc_text_fmt(msg, sizeof(msg), "%s:%d: program %s (%s) "
			    "stops at its start: its JIT compiler needs "
			    "memory writable and executable, which the "
			    "seccomp filter refuses; %s, or let programs "
			    "make such memory with 'jit on'", file, p->line,
			    p->name, p->path, fix);
		} else {
			/* A script of node's (npm, npx): a prefix is the
			 * script's, too late for node. */
			for (v = p->exec_also; v != NULL && *v != NULL; v++)
				if (is_node(*v))
					break;
			if (v == NULL || *v == NULL)
				continue;
			tc_text_fmt(msg, sizeof(msg), "%s:%d: program %s runs "
			    "node (%s), which stops at its start: its JIT "
			    "compiler needs memory writable and executable, "
			    "which the seccomp filter refuses; let programs "
			    "make such memory with 'jit on'", file, p->line,
			    p->name, *v);
		}
		n++;
		if (report != NULL)
			report(ctx, msg);
	}
	return n;
}
