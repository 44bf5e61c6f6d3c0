import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// This device's TLS identity: a self-signed certificate and its P-256 key, generated once and kept
/// in the user's Courier config (`certificate.pem`, `key.pem`, mode 0600), so that the fingerprint
/// peers remember — the SHA-256 of the DER certificate in uppercase hex, as the reference LocalSend
/// app computes it — stays the same across runs.
public struct NearbyIdentity: Sendable {
    public let certificateDER: [UInt8]
    public let privateKeyPEM: String

    /// The protocol's device fingerprint: SHA-256 of the DER certificate, uppercase hex.
    public var fingerprint: String { Self.fingerprint(ofDER: certificateDER) }

    /// Uppercase hex, as the reference app announces it (`calculateHashOfCertificate` in its
    /// `security_helper.dart`); peers that compare case-sensitively then recognise this device.
    public static func fingerprint(ofDER der: [UInt8]) -> String {
        SHA256.hash(data: der).hex.uppercased()
    }

    /// Whether two fingerprints are the same: the protocol does not fix the case of the hex, and
    /// peers announce either.
    public static func same(_ a: String, _ b: String) -> Bool {
        a.lowercased() == b.lowercased()
    }

    /// Loads the identity in `folder`, or generates and stores one when there is none. A folder
    /// with only one of the two files, or files that do not parse, is an error (never silently
    /// replaced: peers that trust the old fingerprint would stop recognising this device).
    public static func loadOrCreate(in folder: String, commonName: String = "Courier Nearby") throws -> NearbyIdentity {
        let certificatePath = folder + "/certificate.pem"
        let keyPath = folder + "/key.pem"
        let fileManager = FileManager.default
        let haveCertificate = fileManager.fileExists(atPath: certificatePath)
        let haveKey = fileManager.fileExists(atPath: keyPath)
        if haveCertificate || haveKey {
            guard haveCertificate && haveKey else {
                throw NearbyError(500, "\(folder) holds only one of certificate.pem and key.pem; restore the other, or remove both to make a new identity (peers will see a new fingerprint)")
            }
            do {
                let certificate = try Certificate(pemEncoded: String(contentsOfFile: certificatePath, encoding: .utf8))
                var serializer = DER.Serializer()
                try serializer.serialize(certificate)
                let keyPEM = try String(contentsOfFile: keyPath, encoding: .utf8)
                _ = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
                return NearbyIdentity(certificateDER: serializer.serializedBytes, privateKeyPEM: keyPEM)
            } catch {
                throw NearbyError(500, "cannot read the identity in \(folder) (\(error)); remove certificate.pem and key.pem to make a new one (peers will see a new fingerprint)")
            }
        }
        let identity = try generate(commonName: commonName)
        try fileManager.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try write(identity.privateKeyPEM, to: keyPath)
        let certificate = try Certificate(derEncoded: identity.certificateDER)
        try write(certificate.serializeAsPEM().pemString + "\n", to: certificatePath)
        return identity
    }

    /// A new key and a self-signed certificate for it, valid for ten years.
    public static func generate(commonName: String) throws -> NearbyIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(10 * 365 * 86400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                KeyUsage(digitalSignature: true)
            },
            issuerPrivateKey: .init(key)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return NearbyIdentity(certificateDER: serializer.serializedBytes, privateKeyPEM: key.pemRepresentation)
    }

    /// The certificate and key as NIOSSL takes them.
    func tlsMaterial() throws -> (certificate: NIOSSLCertificate, key: NIOSSLPrivateKey) {
        (try NIOSSLCertificate(bytes: certificateDER, format: .der),
         try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem))
    }

    /// The TLS side of a server with this identity. A client certificate is asked for, never
    /// required: a peer that sends one (mutual TLS) has its fingerprint proven.
    func serverTLSContext() throws -> NIOSSLContext {
        let material = try tlsMaterial()
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(material.certificate)], privateKey: .privateKey(material.key))
        tls.certificateVerification = .optionalVerification
        return try NIOSSLContext(configuration: tls)
    }

    /// Writes `text` to `path` with mode 0600 from the start (no window where the key is readable).
    private static func write(_ text: String, to path: String) throws {
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw NearbyError(500, "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw NearbyError(500, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
