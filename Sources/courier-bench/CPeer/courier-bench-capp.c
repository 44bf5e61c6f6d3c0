/* courier-bench-capp: the bare libdbus baseline of `courier-bench startup`. It starts the way the
 * Courier library starts an app, in plain C: connect to the session bus (Hello), serve the app's
 * object path, own the bundle id as a bus name, call org.courier.Broker1.CheckIn(bundle id) and
 * wait for its a{sv} answer; then it exits. COURIER_BUNDLE_ID names the app (a bundle id that is
 * already a valid bus name: the benchmark's own), as the broker sets it for a Courier app.
 * Exit status: 0 checked in; 1 refused (name taken, CheckIn failed); 64 no bundle id; 69 no bus. */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static DBusHandlerResult not_handled(DBusConnection *c, DBusMessage *m, void *data) {
    (void)c; (void)m; (void)data;
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

static int fail(DBusConnection *c, DBusError *err, const char *what, int status) {
    fprintf(stderr, "courier-bench-capp: %s: %s\n", what, dbus_error_is_set(err) ? err->message : "refused");
    dbus_error_free(err);
    if (c) {
        dbus_connection_close(c);
        dbus_connection_unref(c);
    }
    return status;
}

int main(void) {
    const char *id = getenv("COURIER_BUNDLE_ID");
    if (!id || !*id || strlen(id) > 200) {
        fprintf(stderr, "courier-bench-capp: COURIER_BUNDLE_ID is not set (or longer than 200 bytes)\n");
        return 64;
    }
    /* org.example.bench.capp -> /org/example/bench/capp */
    char path[256] = "/";
    for (size_t i = 0; id[i]; i++) path[i + 1] = id[i] == '.' ? '/' : id[i] == '-' ? '_' : id[i];
    path[strlen(id) + 1] = 0;

    DBusError err;
    dbus_error_init(&err);
    DBusConnection *c = dbus_bus_get_private(DBUS_BUS_SESSION, &err);
    if (!c) return fail(NULL, &err, "cannot connect to the session bus", 69);
    dbus_connection_set_exit_on_disconnect(c, FALSE);
    DBusObjectPathVTable vtable = { .message_function = not_handled };
    if (!dbus_connection_try_register_object_path(c, path, &vtable, NULL, &err)) return fail(c, &err, "cannot serve the app's path", 1);
    if (dbus_bus_request_name(c, id, DBUS_NAME_FLAG_DO_NOT_QUEUE, &err) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        return fail(c, &err, "cannot own the bundle id's bus name", 1);

    DBusMessage *call = dbus_message_new_method_call("org.courier.Broker", "/org/courier/Broker", "org.courier.Broker1", "CheckIn");
    if (!call || !dbus_message_append_args(call, DBUS_TYPE_STRING, &id, DBUS_TYPE_INVALID)) return fail(c, &err, "out of memory", 1);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(c, call, DBUS_TIMEOUT_USE_DEFAULT, &err);
    dbus_message_unref(call);
    if (!reply) return fail(c, &err, "CheckIn failed", 1);
    int ok = dbus_message_has_signature(reply, "a{sv}");
    dbus_message_unref(reply);
    if (!ok) return fail(c, &err, "CheckIn answered with an unexpected signature", 1);
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return 0;
}
