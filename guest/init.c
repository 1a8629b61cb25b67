// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the guest initramfs: mount what the programs expect, enable swap
 * on the VM's blank disk and mount its XFS disk on /mnt/xfs if it has them,
 * run each line of /run.list (program name in
 * /bin, then its arguments, optionally preceded by "@SECS", a time limit) and
 * reboot, which with -no-reboot ends QEMU.
 *
 * Every line of output the host parses starts with "@@@ " so that kernel
 * messages interleaved on the same console cannot be mistaken for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 64

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (write(1, buf, n) < 0)
		return;
}

static void do_mount(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		say("@@@ WARN mount %s on %s: %s\n", type, dst, strerror(errno));
}

/* Write a version-1 swap header ("SWAPSPACE2") and enable the device. */
static void setup_swap(const char *dev)
{
	long psize = sysconf(_SC_PAGESIZE);
	uint64_t bytes;
	uint32_t *info;
	char *page;
	int fd;

	fd = open(dev, O_RDWR);
	if (fd < 0)
		return;
	if (ioctl(fd, BLKGETSIZE64, &bytes) || bytes < (uint64_t)psize * 16) {
		say("@@@ WARN %s: no usable size\n", dev);
		close(fd);
		return;
	}
	page = calloc(1, psize);
	if (!page)
		return;
	info = (uint32_t *)(page + 1024);
	info[0] = 1;				/* version */
	info[1] = bytes / psize - 1;		/* last_page */
	info[2] = 0;				/* nr_badpages */
	memcpy(page + psize - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, page, psize, 0) != psize || fsync(fd))
		say("@@@ WARN %s: cannot write swap header\n", dev);
	close(fd);
	free(page);
	if (swapon(dev, 0))
		say("@@@ WARN swapon %s: %s\n", dev, strerror(errno));
	else
		say("@@@ SWAP %s %llu MiB\n", dev,
		    (unsigned long long)(bytes >> 20));
}

/*
 * Test VMs have a blank swap disk and a disk with an XFS file system (made
 * on the host). virtio-mmio probes devices in reverse command-line order,
 * so tell them apart by content, never by name: only the blank one may get
 * a swap header.
 */
static void setup_disks(void)
{
	static const char *const devs[] = { "/dev/vda", "/dev/vdb" };
	char magic[4];
	unsigned int i;
	int fd, n;

	for (i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		fd = open(devs[i], O_RDONLY);
		if (fd < 0)
			continue;
		n = pread(fd, magic, sizeof(magic), 0);
		close(fd);
		if (n == sizeof(magic) && !memcmp(magic, "XFSB", 4)) {
			mkdir("/mnt", 0755);
			mkdir("/mnt/xfs", 0755);
			if (mount(devs[i], "/mnt/xfs", "xfs", 0, NULL))
				say("@@@ WARN mount xfs %s: %s\n", devs[i],
				    strerror(errno));
			else
				say("@@@ XFS %s on /mnt/xfs\n", devs[i]);
		} else {
			setup_swap(devs[i]);
		}
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

/*
 * Run /bin/ARGV[0] with a time limit; print its END marker; return 0 on pass
 * or skip. The limit is kept here, not in the program: a program may set
 * its own alarm() (the kselftest harness does, for every test) and so
 * cancel one it inherited. On expiry the program's whole process group
 * (it and the children it forked) is killed, and only it fails.
 */
static int run_once(char **argv, int limit, int norandmaps)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	char path[256];
	int status;
	double t;
	pid_t pid;

	snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	say("@@@ BEGIN %s\n", argv[0]);
	t = now();
	pid = fork();
	if (pid < 0) {
		say("@@@ END %s rc=fork-failed\n", argv[0]);
		return -1;
	}
	if (!pid) {
		setpgid(0, 0);
		if (chdir("/tmp"))
			_exit(126);
		if (norandmaps && personality(ADDR_NO_RANDOMIZE) < 0)
			_exit(126);
		execv(path, argv);
		say("exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	timed_out = 0;
	if (limit) {
		/* No SA_RESTART: the alarm interrupts waitpid(). */
		sigaction(SIGALRM, &sa, NULL);
		alarm(limit);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
		if (!timed_out)
			continue;
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		say("@@@ END %s rc=timeout-%ds secs=%.1f\n", argv[0], limit,
		    now() - t);
		return -1;
	}
	alarm(0);
	if (WIFEXITED(status)) {
		say("@@@ END %s rc=%d secs=%.1f\n", argv[0],
		    WEXITSTATUS(status), now() - t);
		return WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 4 ? 0 : -1;
	}
	say("@@@ END %s rc=signal-%d secs=%.1f\n", argv[0],
	    WTERMSIG(status), now() - t);
	return -1;
}

/*
 * A run-list line is "[@SECS] [retry] [norandmaps] prog args": "@SECS" kills
 * prog and what it forked after SECS; "retry" runs a failed prog once more
 * after a "@@@ RETRY" marker, for upstream tests with a known race (the
 * host reports the retry and counts only the second run); "norandmaps" runs
 * prog without address space randomization, for upstream tests whose fixed
 * addresses can collide with a randomized heap.
 */
static void run(char *line)
{
	char *argv[MAX_ARGS + 1];
	int argc = 0, limit = 0, retry = 0, norandmaps = 0;
	char *tok;

	for (tok = strtok(line, " \t\n"); tok && argc < MAX_ARGS;
	     tok = strtok(NULL, " \t\n"))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if (!argc || argv[0][0] == '#')
		return;
	while (argc && (argv[0][0] == '@' || !strcmp(argv[0], "retry") ||
			!strcmp(argv[0], "norandmaps"))) {
		if (argv[0][0] == '@')
			limit = atoi(argv[0] + 1);
		else if (!strcmp(argv[0], "retry"))
			retry = 1;
		else
			norandmaps = 1;
		memmove(argv, argv + 1, argc-- * sizeof(*argv));
	}
	if (!argc)
		return;
	if (run_once(argv, limit, norandmaps) && retry) {
		say("@@@ RETRY %s\n", argv[0]);
		run_once(argv, limit, norandmaps);
	}
}

int main(void)
{
	static char line[4096];
	FILE *list;
	int fd;

	do_mount("devtmpfs", "/dev", "devtmpfs");
	fd = open("/dev/console", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	do_mount("proc", "/proc", "proc");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs");
	do_mount("tmpfs", "/tmp", "tmpfs");
	setenv("PATH", "/bin", 1);
	setup_disks();

	list = fopen("/run.list", "r");
	if (!list) {
		say("@@@ WARN no /run.list\n");
		if (!access("/bin/sh", X_OK))
			execl("/bin/sh", "sh", NULL);
	} else {
		while (fgets(line, sizeof(line), list))
			run(line);
		fclose(list);
	}
	say("@@@ DONE\n");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
