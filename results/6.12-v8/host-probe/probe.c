#include <stdio.h>
#include <time.h>
#include <stdint.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
	double t0=now(), dur=argc>1?atof(argv[1]):20; volatile uint64_t x=0;
	while(now()-t0<dur){
		double s=now();
		for(long i=0;i<20000000;i++) x+=i*i;
		printf("%.2f %.1f\n", s-t0, (now()-s)*1000);
	}
	return 0;
}
