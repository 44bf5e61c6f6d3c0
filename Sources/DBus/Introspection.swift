/// Generates `org.freedesktop.DBus.Introspectable` XML from the same `DBusInterface` values that
/// drive dispatch, the standard interfaces' (`StandardInterfaces`) first.
enum Introspection {
    static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    static func args(_ sig: Signature, _ names: [String], direction: String?, indent: String) -> String {
        var out = ""
        for (i, t) in sig.types.enumerated() {
            out += "\(indent)<arg type=\"\(XMLText.escaped(t.signature))\""
            if i < names.count, !names[i].isEmpty { out += " name=\"\(XMLText.escaped(names[i]))\"" }
            if let direction { out += " direction=\"\(direction)\"" }
            out += "/>\n"
        }
        return out
    }

    static func xml(_ interfaces: [DBusInterface], children: [String]) -> String {
        var out = header + "<node>\n"
        for i in (interfaces.isEmpty ? [] : StandardInterfaces.all) + interfaces {
            out += "  <interface name=\"\(i.name)\">\n"
            for m in i.methods {
                let body = args(m.arguments, m.argumentNames, direction: "in", indent: "      ")
                    + args(m.results, m.resultNames, direction: "out", indent: "      ")
                out += body.isEmpty ? "    <method name=\"\(m.name)\"/>\n" : "    <method name=\"\(m.name)\">\n\(body)    </method>\n"
            }
            for s in i.signals {
                let body = args(s.arguments, s.argumentNames, direction: nil, indent: "      ")
                out += body.isEmpty ? "    <signal name=\"\(s.name)\"/>\n" : "    <signal name=\"\(s.name)\">\n\(body)    </signal>\n"
            }
            for p in i.properties {
                let access = p.set == nil ? "read" : "readwrite"
                out += "    <property name=\"\(p.name)\" type=\"\(XMLText.escaped(p.type.signature))\" access=\"\(access)\"/>\n"
            }
            out += "  </interface>\n"
        }
        for c in children { out += "  <node name=\"\(XMLText.escaped(c))\"/>\n" }
        return out + "</node>\n"
    }
}

extension DBusInterface {
    /// What `org.freedesktop.DBus.Introspectable.Introspect` answers for an object serving
    /// `interfaces` and no children: documentation generated from a declaration is then the
    /// text a live object serves.
    public static func introspectionXML(_ interfaces: [DBusInterface]) -> String {
        Introspection.xml(interfaces, children: [])
    }
}
