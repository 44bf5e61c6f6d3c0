#include "CDBusEcho.h"
#include <dbus/dbus.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define ECHO_PATH "/org/courier/bench/Echo"
#define ECHO_IFACE "org.courier.bench.Echo1"
#define PAYLOAD "courier-echo-payload"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A connection to `address`: a bus (Hello sent) when `bus`, else a direct peer (no daemon). */
static DBusConnection *open_connection(const char *address, int bus) {
    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_connection_open_private(address, &err);
    if (!c) {
        fprintf(stderr, "echo: cannot connect to %s: %s\n", address, err.message);
        dbus_error_free(&err);
        return NULL;
    }
    dbus_connection_set_exit_on_disconnect(c, FALSE);
    if (bus && !dbus_bus_register(c, &err)) {
        fprintf(stderr, "echo: Hello failed: %s\n", err.message);
        dbus_error_free(&err);
        dbus_connection_close(c);
        dbus_connection_unref(c);
        return NULL;
    }
    return c;
}

static void close_bus(DBusConnection *c) {
    dbus_connection_close(c);
    dbus_connection_unref(c);
}

/* Answers Echo calls on `c` until it is disconnected, then closes it. */
static int serve_connection(DBusConnection *c) {
    while (dbus_connection_read_write(c, -1)) {
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(c)) != NULL) {
            if (dbus_message_is_method_call(m, ECHO_IFACE, "Echo")) {
                DBusMessage *r = dbus_message_new_method_return(m);
                DBusMessageIter in, out;
                dbus_message_iter_init_append(r, &out);
                if (dbus_message_iter_init(m, &in) && dbus_message_iter_get_arg_type(&in) == DBUS_TYPE_STRING) {
                    const char *s;
                    dbus_message_iter_get_basic(&in, &s);
                    dbus_message_iter_append_basic(&out, DBUS_TYPE_STRING, &s);
                }
                dbus_connection_send(c, r, NULL);
                dbus_message_unref(r);
            } else if (dbus_message_is_signal(m, DBUS_INTERFACE_LOCAL, "Disconnected")) {
                dbus_message_unref(m);
                close_bus(c);
                return 0;
            }
            dbus_message_unref(m);
        }
    }
    close_bus(c);
    return 0;
}

int courier_echo_serve(const char *address, const char *name) {
    DBusConnection *c = open_connection(address, 1);
    if (!c) return -1;
    DBusError err;
    dbus_error_init(&err);
    if (dbus_bus_request_name(c, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "echo: cannot own %s\n", name);
        dbus_error_free(&err);
        close_bus(c);
        return -1;
    }
    printf("ready\n");
    fflush(stdout);
    return serve_connection(c);
}

/* The direct server's one listening watch, and the peer it accepted. */
static DBusWatch *listening;
static DBusConnection *accepted;
static dbus_bool_t keep_watch(DBusWatch *w, void *data) { (void)data; if (!listening) listening = w; return TRUE; }
static void drop_watch(DBusWatch *w, void *data) { (void)data; if (listening == w) listening = NULL; }
static void take_connection(DBusServer *server, DBusConnection *c, void *data) {
    (void)server; (void)data;
    if (!accepted) accepted = dbus_connection_ref(c);
}

int courier_echo_serve_direct(const char *directory) {
    char address[4096];
    snprintf(address, sizeof address, "unix:dir=%s", directory);
    DBusError err;
    dbus_error_init(&err);
    DBusServer *server = dbus_server_listen(address, &err);
    if (!server) {
        fprintf(stderr, "echo: cannot listen on %s: %s\n", address, err.message);
        dbus_error_free(&err);
        return -1;
    }
    const char *external[] = { "EXTERNAL", NULL };
    dbus_server_set_auth_mechanisms(server, external);
    dbus_server_set_watch_functions(server, keep_watch, drop_watch, NULL, NULL, NULL);
    dbus_server_set_new_connection_function(server, take_connection, NULL, NULL);
    char *listening_address = dbus_server_get_address(server);
    printf("address %s\nready\n", listening_address);
    fflush(stdout);
    dbus_free(listening_address);
    /* One peer at a time, each until it goes away (a benchmark client per round). */
    while (listening) {
        struct pollfd p = { dbus_watch_get_unix_fd(listening), POLLIN, 0 };
        if (poll(&p, 1, -1) > 0) dbus_watch_handle(listening, DBUS_WATCH_READABLE);
        if (accepted) {
            DBusConnection *peer = accepted;
            accepted = NULL;
            serve_connection(peer);
        }
    }
    dbus_server_disconnect(server);
    dbus_server_unref(server);
    return 0;
}

static DBusMessage *make_call(const char *name) {
    DBusMessage *m = dbus_message_new_method_call(name, ECHO_PATH, ECHO_IFACE, "Echo");
    const char *s = PAYLOAD;
    dbus_message_append_args(m, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
    return m;
}

int courier_echo_client_sequential(const char *address, const char *name, int count, uint64_t *latencies_ns) {
    DBusConnection *c = open_connection(address, name != NULL);
    if (!c) return -1;
    DBusError err;
    dbus_error_init(&err);
    for (int i = 0; i < count; i++) {
        uint64_t t0 = now_ns();
        DBusMessage *m = make_call(name);
        DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, -1, &err);
        dbus_message_unref(m);
        if (!r) {
            fprintf(stderr, "echo: call failed: %s\n", err.message);
            dbus_error_free(&err);
            close_bus(c);
            return -1;
        }
        DBusMessageIter it;
        const char *s = NULL;
        if (dbus_message_iter_init(r, &it) && dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_STRING)
            dbus_message_iter_get_basic(&it, &s);
        int ok = s && strcmp(s, PAYLOAD) == 0;
        dbus_message_unref(r);
        latencies_ns[i] = now_ns() - t0;
        if (!ok) {
            fprintf(stderr, "echo: wrong reply\n");
            close_bus(c);
            return -1;
        }
    }
    close_bus(c);
    return 0;
}

int64_t courier_echo_client_pipelined(const char *address, const char *name, int total, int depth) {
    DBusConnection *c = open_connection(address, 1);
    if (!c) return -1;
    int sent = 0, received = 0, inflight = 0;
    uint64_t t0 = now_ns();
    while (received < total) {
        while (inflight < depth && sent < total) {
            DBusMessage *m = make_call(name);
            dbus_connection_send(c, m, NULL);
            dbus_message_unref(m);
            sent++;
            inflight++;
        }
        if (!dbus_connection_read_write(c, -1)) break;
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(c)) != NULL) {
            int t = dbus_message_get_type(m);
            if (t == DBUS_MESSAGE_TYPE_METHOD_RETURN || t == DBUS_MESSAGE_TYPE_ERROR) {
                received++;
                inflight--;
            }
            dbus_message_unref(m);
        }
    }
    int64_t elapsed = (int64_t)(now_ns() - t0);
    close_bus(c);
    return received == total ? elapsed : -1;
}
