@_spi(Testing) import CourierURL
import CourierIRI
import URIParserOracle

/// libFuzzer entry point: any bytes must either be refused with a `URIError` or parse into a
/// reference whose invariants hold, and liburiparser must read them alike (`URIParserOracle`);
/// read as an IRI, they map to a URI the strict parser accepts, whose display form maps back to it. A
/// broken invariant traps, which libFuzzer reports as a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLParser(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
    checkBytes(bytes)
    checkText(String(decoding: bytes, as: UTF8.self))
    checkIRI(String(decoding: bytes, as: UTF8.self))
    return 0
}

/// The todolist format, rebuilt here so the fuzzer covers URLFormat decoding.
let todoFormat = URLFormat(
    schemes: [try! URIScheme("todolist")],
    components: [
        .query: URLComponentRule(.required, allowsBlank: false),
        .fragment: URLComponentRule(.optional, type: .dateTime(try! DateTimePattern("yyyyMMddHHmm")), keywords: ["today"]),
    ],
    queryItems: ["n": URLComponentRule(.optional, decoding: .form, type: .integer(minimum: 0, maximum: 10))])

let base = try! URI("http://a/b/c/d;p?q")

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func checkBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
    // liburiparser: the same verdict and components, or a difference docs/url-format.md lists.
    if case .disagree(let what) = URIParserOracle.compare(bytes) { fatalError("CourierURL and uriparser disagree: \(what)") }
    require(URIReference.fastPathAgreesWithFullParser(bytes), "the fast path and the full parser disagree on \(Array(bytes))")
    if let iri = URIReference.fastPathParse(iriBytes: bytes) {
        require(URIReference.layoutAgreesWithFullParser(iri), "the fast path's IRI reading of \(Array(bytes)) and the full parser of \(iri) disagree")
    }
    guard let uri = try? URIReference(utf8: bytes) else { return }
    require(bytes.allSatisfy { $0 < 0x80 && $0 > 0x20 && $0 != 0x7F }, "accepted a byte outside the grammar: \(Array(bytes))")
    require(Array(uri.string.utf8) == Array(bytes), "string differs from input")
}

func checkText(_ text: String) {
    _ = URIScheme.isValid(text)
    _ = try? PercentEncoding.decode(text, plusAsSpace: true)
    let uri: URIReference
    let oracle = ReferenceParser.parse(text)
    do {
        uri = try URIReference(text)
    } catch {
        require(error.offset >= 0 && error.offset <= text.utf8.count, "error offset \(error.offset) outside the input")
        require(oracle == nil, "refused \(text.debugDescription) (\(error)) but the reference parser accepts it: \(oracle!)")
        return
    }
    guard let oracle else { fatalError("accepted \(text.debugDescription) but the reference parser refuses it") }
    let fast = ReferenceParser.Components(
        scheme: uri.rawScheme.map(String.init), userinfo: uri.userinfo.map(String.init), host: uri.host.map(String.init),
        port: uri.rawPort.map(String.init), path: String(uri.path), query: uri.query.map(String.init),
        fragment: uri.fragment.map(String.init))
    require(fast == oracle, "components differ for \(text.debugDescription): \(fast) vs reference \(oracle)")
    // Serialization is the identity, and parsing what was serialized gives the same components.
    require(uri.recomposed() == text, "recomposed \(uri.recomposed()) != \(text)")
    let again = try! URIReference(uri.recomposed())
    for component in URIComponent.allCases {
        require(again.raw(component) == uri.raw(component), "component \(component) changed on reparse of \(text)")
        require(uri.raw(component).map { _ in uri.offset(of: component) != nil } ?? true, "component without offset")
        _ = try? uri.decoded(component)
        _ = try? uri.decoded(component, plusAsSpace: true)
    }
    if let port = uri.port { require((0...65535).contains(port), "port out of range") }
    uri.withRawComponents { c in
        require(c.path.elementsEqual(uri.path.utf8), "path view differs")
        require(c.query.map { Array($0) } == uri.query.map { Array($0.utf8) }, "query view differs")
        require(c.host.map { Array($0) } == uri.host.map { Array($0.utf8) }, "host view differs")
    }
    _ = try? uri.queryItems()
    // Normalization is idempotent and keeps the reference valid.
    let normal = uri.normalized()
    require(normal.normalized() == normal, "normalization not idempotent: \(text) -> \(normal) -> \(normal.normalized())")
    // Resolution always yields a parseable absolute URI.
    if let resolved = try? uri.resolved(against: base) {
        require(resolved.reference.hasScheme, "resolved without scheme")
    }
    if let absolute = try? URI(uri) {
        _ = try? URIReference("../g?x#y").resolved(against: absolute)
        _ = try? URIReference("").resolved(against: absolute)
    }
    _ = try? todoFormat.decode(uri)
}

/// The IRI mapping (RFC 3987): a refusal is positioned inside the input; a mapped URI is ASCII
/// and passes the strict parser unchanged, with the full parser's layout; URI → display form → URI gives the same URI; the check
/// of what goes to the desktop never traps.
func checkIRI(_ text: String) {
    let conversion: IRIConversion
    do {
        conversion = try IRI.uri(from: text)
    } catch {
        require(error.offset >= 0 && error.offset <= text.utf8.count, "IRI error offset \(error.offset) outside \(text.debugDescription)")
        return
    }
    let uri = conversion.uri
    require(uri.string.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "mapped \(text.debugDescription) to a URI outside ASCII: \(uri)")
    require((try? URIReference(uri.string)) == uri, "the mapped URI \(uri) fails the strict parser")
    require(URIReference.layoutAgreesWithFullParser(uri), "the mapped URI \(uri) has another layout than the full parser's")
    let display = IRI.displayForm(of: uri)
    let again = try? IRI.uri(from: display).uri
    require(again == uri, "URI \(uri) → display form \(display.debugDescription) → \(again?.string ?? "refused")")
    // With every scheme's host a DNS name: the IDNA paths of the same input.
    if let dns = try? IRI.uri(from: text, domainNameHost: { _ in true }).uri {
        require((try? URIReference(dns.string)) == dns, "the mapped URI \(dns) fails the strict parser")
        require(URIReference.layoutAgreesWithFullParser(dns), "the mapped URI \(dns) has another layout than the full parser's")
        let shown = IRI.displayForm(of: dns, domainNameHost: { _ in true })
        let back = try? IRI.uri(from: shown, domainNameHost: { _ in true }).uri
        require(back == dns, "URI \(dns) → display form \(shown.debugDescription) → \(back?.string ?? "refused") (DNS hosts)")
    }
    _ = try? BrowserReading.check(uri)
    _ = IRI.suggestion(for: text)
}
