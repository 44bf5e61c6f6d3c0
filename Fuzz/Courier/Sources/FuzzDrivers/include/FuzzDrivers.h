// The fuzzers' process entry points (see driver.c).
int FuzzManifest_main(int argc, char **argv);
int FuzzBrokerArguments_main(int argc, char **argv);
