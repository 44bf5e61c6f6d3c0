import DBus
import Foundation
import Testing

/// `XMLText.escaped` text reads back unchanged through an XML parser nobody here wrote (Python's
/// `xml.etree`, on expat), as character data and as quoted attribute values.
@Suite struct XMLTextTests {
    static let hostile = #"a & b <c> "d" 'e' &amp; </node><node name="x"/> é"#

    @Test func escapedTextReadsBackAsElementTextAndAttributes() async throws {
        let escaped = XMLText.escaped(Self.hostile)
        let document = "<node name=\"\(escaped)\" other='\(escaped)'>\(escaped)</node>"
        let script = """
            import json, sys, xml.etree.ElementTree as tree
            node = tree.fromstring(sys.argv[1])
            print(json.dumps([node.tag, len(node), node.get("name"), node.get("other"), node.text]))
            """
        let r = try await Tool.run("/usr/bin/python3", ["-c", script, document], environment: ProcessInfo.processInfo.environment)
        #expect(r.status == 0, "\(r.stderr) for \(document)")
        let read = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [Any]
        #expect(read?.count == 5)
        #expect(read?[0] as? String == "node")
        #expect(read?[1] as? Int == 0, "no element may come out of the text")
        #expect(read?[2] as? String == Self.hostile)
        #expect(read?[3] as? String == Self.hostile)
        #expect(read?[4] as? String == Self.hostile)
    }
}
