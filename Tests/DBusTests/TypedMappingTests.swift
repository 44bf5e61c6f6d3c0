import DBus
import Testing

/// Swift values ↔ `DBusValue` through `DBusRepresentable`.
@Suite struct TypedMappingTests {
    struct Point: DBusRepresentable, Equatable {
        var x: Int32
        var y: Int32
        static var dbusType: DBusType { .structure([.int32, .int32]) }
        var dbusValue: DBusValue { .structure([.int32(x), .int32(y)]) }
        init(x: Int32, y: Int32) {
            self.x = x
            self.y = y
        }
        init(dbusValue v: DBusValue) throws(DBusError) {
            guard case .structure(let f) = v, f.count == 2 else { throw .typeMismatch(Self.self, v) }
            x = try Int32(dbusValue: f[0])
            y = try Int32(dbusValue: f[1])
        }
    }

    @Test func typedValuesMapBothWays() throws {
        let dict: [String: [Point]] = ["a": [Point(x: 1, y: 2)], "b": []]
        #expect(type(of: dict).dbusType.signature == "a{sa(ii)}")
        #expect(try [String: [Point]](dbusValue: dict.dbusValue) == dict)
        #expect(try [UInt64](dbusValue: [UInt64(1), 2].dbusValue) == [1, 2])
        #expect(try DBusValue(dbusValue: DBusValue.string("x").dbusValue) == .string("x"))
        let args: [DBusValue] = ["url".dbusValue, true.dbusValue]
        #expect(try args.decode(String.self, at: 0) == "url")
        #expect(try args.decode(Bool.self, at: 1))
    }

    @Test func wrongTypeIsInvalidArgs() {
        let args: [DBusValue] = [.int32(1)]
        #expect(throws: DBusError.invalidArgs("expected a value of D-Bus type 's', got 'i'")) { try args.decode(String.self, at: 0) }
        #expect(throws: DBusError.self) { try args.decode(String.self, at: 3) }
    }
}
