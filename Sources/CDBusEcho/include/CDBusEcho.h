#ifndef COURIER_CDBUS_ECHO_H
#define COURIER_CDBUS_ECHO_H
#include <stdint.h>

/* The plain C libdbus baseline of `courier-bench dbus-echo`: what a careful C program does,
 * with nothing of the Swift binding in the path. */

/* Serves Echo(s) -> s at /org/courier/bench/Echo (org.courier.bench.Echo1) on the bus at
 * `address`, owning `name`; prints "ready" on stdout once the name is owned; returns when the
 * bus goes away. Returns 0, or -1 with a message on stderr. */
int courier_echo_serve(const char *address, const char *name);

/* Serves the same Echo over direct connections, with no dbus-daemon between: listens in
 * `directory` (EXTERNAL authentication: this user only), prints "address ADDRESS" and "ready",
 * then serves one peer at a time, each until it goes away; runs until killed. What a hop through
 * the bus costs is the difference between this and `courier_echo_serve` for the same client.
 * Returns -1 (with a message on stderr) if it cannot listen. */
int courier_echo_serve_direct(const char *directory);

/* `count` sequential blocking calls; latencies_ns[i] receives each round trip. A NULL `name`
 * connects to `address` as a direct peer (a `courier_echo_serve_direct` address). */
int courier_echo_client_sequential(const char *address, const char *name, int count, uint64_t *latencies_ns);

/* `total` calls with `depth` in flight; returns the elapsed nanoseconds, or -1. */
int64_t courier_echo_client_pipelined(const char *address, const char *name, int total, int depth);
#endif
