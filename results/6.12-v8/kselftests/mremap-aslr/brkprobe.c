// How often does a fresh static arm64 process's brk heap land where
// mremap_test's 40 MiB preamble goes (46..86 MiB above its source slot,
// which starts at 41 MiB)? Fork+exec itself N times, print a histogram.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/personality.h>

int main(int argc, char **argv)
{
	int i, n = 400, hit = 0, pfd[2];
	unsigned long b;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		if (!malloc(100))
			return 1;
		printf("%lu\n", (unsigned long)sbrk(0));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "norand"))
		personality(ADDR_NO_RANDOMIZE);
	printf("1..1\n");
	for (i = 0; i < n; i++) {
		char buf[64] = "";
		pid_t pid;

		if (pipe(pfd))
			return 1;
		pid = fork();
		if (!pid) {
			dup2(pfd[1], 1);
			execl("/proc/self/exe", "brkprobe", "child", NULL);
			_exit(1);
		}
		close(pfd[1]);
		read(pfd[0], buf, sizeof(buf) - 1);
		close(pfd[0]);
		waitpid(pid, NULL, 0);
		b = strtoul(buf, NULL, 10);
		/* heap top between 47 MiB (41 MiB source + 6) and 87 MiB */
		if (b >= (47UL << 20) && b < (87UL << 20))
			hit++;
		if (i < 5)
			printf("# brk %lu MiB\n", b >> 20);
	}
	printf("# %d of %d brk tops in [47, 87) MiB\nok 1 brkprobe\n", hit, n);
	return 0;
}
