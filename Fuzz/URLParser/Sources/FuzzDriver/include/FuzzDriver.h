// The fuzzer's process entry point (see driver.c).
int FuzzURLParser_main(int argc, char **argv);
