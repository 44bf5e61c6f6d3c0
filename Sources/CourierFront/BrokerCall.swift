import CDBus
import CourierNames

/// The front's whole conversation with the bus: connect, Hello, one blocking
/// `org.courier.Broker1.OpenURL` per URL, close — libdbus called directly, on the main thread.
///
/// Why not the `DBus` module: its API is asynchronous (an I/O thread per connection, Swift
/// concurrency's worker threads), which is right for the broker and apps but costs a one-shot
/// process about 1.3 ms of its ~3.5 ms (threads, task and metadata set-up) before the first byte
/// is sent; `courier open` needs exactly one call and nothing else (docs/broker.md, "`courier open`
/// start-up"). The message is the same `(s url, a{sv} options)` → `(b, s, a{sv})` that
/// `BrokerClient.open` sends; what the front cannot decode it leaves to the full CLI.
final class BrokerCall {
    /// A D-Bus error reply or a local failure (`name` is the D-Bus error name).
    struct Failure: Error {
        var name: String
        var message: String
    }

    /// `(b handled, s bundle_id, a{sv} reply)`, with the reply's `state` (what `--dry-run` prints).
    struct Answer {
        var handled: Bool
        var bundleID: String
        var state: String?
    }

    /// An option value: the front sends strings and booleans only.
    enum Option {
        case string(String)
        case boolean(Bool)
    }

    private let connection: OpaquePointer

    /// Connects to the session bus and says Hello.
    init(address: String) throws(Failure) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        dbus_connection_set_change_sigpipe(1)   // a closed socket gives EPIPE, never kills the process
        guard let connection = dbus_connection_open_private(address, &error) else {
            throw Self.failure(&error, "cannot connect to the session bus at '\(address)'")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard dbus_bus_register(connection, &error) != 0 else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw Self.failure(&error, "cannot register on the session bus at '\(address)'")
        }
        self.connection = connection
    }

    deinit {
        dbus_connection_flush(connection)
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// `OpenURL(url, options)`; with `waitForReply` false the call is sent flagged no-reply and
    /// the answer is nil (`--no-wait`).
    func openURL(_ url: String, options: [(String, Option)], waitForReply: Bool, timeoutMilliseconds: Int32) throws(Failure) -> Answer? {
        guard let message = dbus_message_new_method_call(CourierBusNames.broker, CourierBusNames.brokerPath, CourierBusNames.brokerInterface, CourierBusNames.openURL) else {
            throw Failure(name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory building a D-Bus message")
        }
        defer { dbus_message_unref(message) }
        guard Self.append(url, options, to: message) else {
            throw Failure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "the URL or an option is not valid UTF-8 for D-Bus")
        }
        guard waitForReply else {
            dbus_message_set_no_reply(message, 1)
            guard dbus_connection_send(connection, message, nil) != 0 else {
                throw Failure(name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory sending a D-Bus message")
            }
            dbus_connection_flush(connection)
            return nil
        }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, timeoutMilliseconds, &error) else {
            throw Self.failure(&error, "no answer from the broker")
        }
        defer { dbus_message_unref(reply) }
        guard let answer = Self.decode(reply) else {
            throw Failure(name: "org.freedesktop.DBus.Error.InvalidSignature", message: "the broker answered OpenURL with an unexpected signature")
        }
        return answer
    }

    // MARK: Marshalling (libdbus validates UTF-8 and object sizes itself)

    private static let typeString = Int32(UInt8(ascii: "s"))
    private static let typeBoolean = Int32(UInt8(ascii: "b"))
    private static let typeArray = Int32(UInt8(ascii: "a"))
    private static let typeVariant = Int32(UInt8(ascii: "v"))
    private static let typeDictEntry = Int32(UInt8(ascii: "e"))

    private static func append(_ url: String, _ options: [(String, Option)], to message: OpaquePointer) -> Bool {
        var top = DBusMessageIter()
        dbus_message_iter_init_append(message, &top)
        guard appendString(url, to: &top) else { return false }
        var dictionary = DBusMessageIter()
        guard dbus_message_iter_open_container(&top, typeArray, "{sv}", &dictionary) != 0 else { return false }
        for (key, value) in options {
            var entry = DBusMessageIter()
            var variant = DBusMessageIter()
            guard dbus_message_iter_open_container(&dictionary, typeDictEntry, nil, &entry) != 0,
                  appendString(key, to: &entry) else { return false }
            switch value {
            case .string(let text):
                guard dbus_message_iter_open_container(&entry, typeVariant, "s", &variant) != 0, appendString(text, to: &variant) else { return false }
            case .boolean(let flag):
                var bit: dbus_bool_t = flag ? 1 : 0
                guard dbus_message_iter_open_container(&entry, typeVariant, "b", &variant) != 0,
                      dbus_message_iter_append_basic(&variant, typeBoolean, &bit) != 0 else { return false }
            }
            guard dbus_message_iter_close_container(&entry, &variant) != 0,
                  dbus_message_iter_close_container(&dictionary, &entry) != 0 else { return false }
        }
        return dbus_message_iter_close_container(&top, &dictionary) != 0
    }

    private static func appendString(_ text: String, to iterator: inout DBusMessageIter) -> Bool {
        // libdbus refuses (and would abort on) invalid UTF-8 or NUL: check first, as the DBus module does.
        guard !text.utf8.contains(0), dbus_validate_utf8(text, nil) != 0 else { return false }
        return text.withCString { pointer in
            var value: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iterator, typeString, &value) != 0
        }
    }

    /// `(b, s, a{sv})`, keeping the reply dictionary's `state` string.
    private static func decode(_ reply: OpaquePointer) -> Answer? {
        guard String(cString: dbus_message_get_signature(reply)) == CourierBusNames.openURLResults else { return nil }
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(reply, &iterator) != 0 else { return nil }
        var handled: dbus_bool_t = 0
        dbus_message_iter_get_basic(&iterator, &handled)
        dbus_message_iter_next(&iterator)
        var bundleID: UnsafePointer<CChar>?
        dbus_message_iter_get_basic(&iterator, &bundleID)
        dbus_message_iter_next(&iterator)
        var state: String?
        var dictionary = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &dictionary)
        while dbus_message_iter_get_arg_type(&dictionary) == typeDictEntry {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&dictionary, &entry)
            var key: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&entry, &key)
            if let key, String(cString: key) == CourierBusNames.OpenURLKey.state {
                dbus_message_iter_next(&entry)
                var variant = DBusMessageIter()
                dbus_message_iter_recurse(&entry, &variant)
                if dbus_message_iter_get_arg_type(&variant) == typeString {
                    var text: UnsafePointer<CChar>?
                    dbus_message_iter_get_basic(&variant, &text)
                    state = text.map { String(cString: $0) }
                }
            }
            dbus_message_iter_next(&dictionary)
        }
        return Answer(handled: handled != 0, bundleID: bundleID.map { String(cString: $0) } ?? "", state: state)
    }

    private static func failure(_ error: inout DBusError, _ fallback: String) -> Failure {
        guard dbus_error_is_set(&error) != 0 else { return Failure(name: "org.freedesktop.DBus.Error.Failed", message: fallback) }
        return Failure(
            name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
            message: error.message.map { String(cString: $0) } ?? fallback)
    }
}
