import AuthCore
import AuthCoreClients
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The file stores: what a credentials file must guarantee (mode 0600 from creation, atomic replace,
/// refusal of files others can read, of symlinks and of oversized files), and that hostile contents
/// are typed errors.
@Suite("Secret files and the Cognito token and device stores")
struct CognitoStoreTests {
    static func directory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static let session = CognitoStoredSession(
        region: "us-east-1",
        userPoolId: "us-east-1_Abc123",
        clientId: "client1",
        username: "alice",
        tokens: CognitoTokens(
            idToken: "id.token.value",
            accessToken: "access.token.value",
            refreshToken: "refresh-token-value",
            expiresIn: 3600
        ),
        expiresAt: Timestamp(secondsSince1970: 1_800_000_000)
    )

    @Test("a written file is mode 0600, replaced atomically (no temporary left), and read back")
    func writeAndRead() throws {
        let path = try Self.directory() + "/secret.json"
        let file = try SecretFile(path: path)
        try file.write(SecureBytes(Array("first".utf8)))
        try file.write(SecureBytes(Array("second".utf8)))
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        let contents = try #require(try file.read())
        #expect(contents.withUnsafeBytes { Array($0) } == Array("second".utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(names == ["secret.json"])
        try file.remove()
        #expect(try file.read() == nil)
        try file.remove()  // removing what is not there is no error
    }

    @Test("files others may read, symlinks, directories and oversized files are refused with typed errors")
    func refusals() throws {
        let directory = try Self.directory()
        let open = directory + "/open.json"
        #expect(
            FileManager.default.createFile(
                atPath: open,
                contents: Data("{}".utf8),
                attributes: [.posixPermissions: 0o644]
            )
        )
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try SecretFile(path: open).read() }
        let target = directory + "/target.json"
        #expect(
            FileManager.default.createFile(
                atPath: target,
                contents: Data("{}".utf8),
                attributes: [.posixPermissions: 0o600]
            )
        )
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.json", withDestinationPath: target)
        #expect(throws: AuthCoreError(.malformedInput, "")) { try SecretFile(path: directory + "/link.json").read() }
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try SecretFile(path: directory).read() }
        let big = directory + "/big.json"
        #expect(
            FileManager.default.createFile(
                atPath: big,
                contents: Data(repeating: 0x20, count: SecretFile.maximumBytes + 1),
                attributes: [.posixPermissions: 0o600]
            )
        )
        #expect(throws: AuthCoreError(.inputTooLarge, "")) { try SecretFile(path: big).read() }
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try SecretFile(path: "") }
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // at once, not blocked in open
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try SecretFile(path: fifo).read() }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try SecretFile(path: directory + "/missing-dir/x.json").write(SecureBytes([1]))
        }
    }

    @Test("the token store keeps a session across instances, one file per pool and client")
    func tokenStoreRoundTrip() async throws {
        let directory = try Self.directory()
        let configuration = try CognitoUserPoolConfiguration(
            region: "us-east-1",
            userPoolId: "us-east-1_Abc123",
            clientId: "client1"
        )
        let store = try FileCognitoTokenStore(directory: directory, configuration: configuration)
        #expect(store.file.path == directory + "/cognito-session-us-east-1_Abc123-client1.json")
        #expect(try await store.session() == nil)
        try await store.save(Self.session)
        let restored = try #require(
            try await FileCognitoTokenStore(directory: directory, configuration: configuration).session()
        )
        #expect(restored.tokens.accessToken == "access.token.value")
        #expect(restored.tokens.refreshToken == "refresh-token-value")
        #expect(restored.expiresAt == Self.session.expiresAt)
        #expect(restored.username == "alice")
        #expect(!"\(restored)".contains("token"))
        try await store.removeSession()
        #expect(try await store.session() == nil)
    }

    @Test(
        "hostile store contents are typed errors, never a trap",
        arguments: [
            "", "[]", "{\"version\":2}", "{\"version\":1e300}", "{\"version\":1,\"region\":\"r\"}",
            "{\"version\":1,\"region\":\"r\",\"userPoolId\":\"p\",\"clientId\":\"c\",\"username\":\"u\",\"idToken\":\"i\",\"accessToken\":\"a\",\"expiresAt\":\"99999-01-01T00:00:00Z\"}",
            "{\"version\":1,\"region\":\"r\",\"userPoolId\":\"p\",\"clientId\":\"c\",\"username\":\"u\",\"idToken\":5,\"accessToken\":\"a\",\"expiresAt\":\"2026-01-01T00:00:00Z\"}",
        ]
    )
    func hostileContents(text: String) async throws {
        let path = try Self.directory() + "/session.json"
        #expect(
            FileManager.default.createFile(
                atPath: path,
                contents: Data(text.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        )
        await #expect(throws: AuthCoreError.self) { try await FileCognitoTokenStore(path: path).session() }
        do {
            _ = try await FileCognitoTokenStore(path: path).session()
        } catch {
            #expect(error.code == .malformedInput, "\(error)")
        }
    }

    @Test("the file device store remembers devices across instances; a broken file is reported, not trusted")
    func deviceStore() async throws {
        let path = try Self.directory() + "/devices.json"
        let store = try FileCognitoDeviceStore(path: path)
        let device = CognitoRememberedDevice(
            deviceKey: "us-east-1_device",
            deviceGroupKey: "-group",
            devicePassword: SecureBytes(Array("pw/+=".utf8))
        )
        await store.save(device, for: "alice")
        let again = try FileCognitoDeviceStore(path: path)
        let restored = try #require(await again.device(for: "alice"))
        #expect(restored.deviceKey == "us-east-1_device")
        #expect(restored.deviceGroupKey == "-group")
        #expect(restored.devicePassword == SecureBytes(Array("pw/+=".utf8)))
        #expect(await again.device(for: "bob") == nil)
        await again.removeDevice(for: "alice")
        #expect(await store.device(for: "alice") == nil)
        #expect(await store.lastError == nil)
        #expect(
            FileManager.default.createFile(
                atPath: path,
                contents: Data("{\"version\":1,\"devices\":{\"alice\":{}}}".utf8),
                attributes: [.posixPermissions: 0o600]
            )
        )
        #expect(await store.device(for: "alice") == nil)
        #expect(await store.lastError?.code == .malformedInput)
    }

    @Test("canonically equivalent usernames (two accounts) keep their own devices; a version 1 file is still read")
    func deviceStoreKeysByBytes() async throws {
        let path = try Self.directory() + "/devices-bytes.json"
        let store = try FileCognitoDeviceStore(path: path)
        let composed = CognitoRememberedDevice(
            deviceKey: "us-east-1_composed",
            deviceGroupKey: "-g1",
            devicePassword: SecureBytes(Array("one".utf8))
        )
        let decomposed = CognitoRememberedDevice(
            deviceKey: "us-east-1_decomposed",
            deviceGroupKey: "-g2",
            devicePassword: SecureBytes(Array("two".utf8))
        )
        await store.save(composed, for: "jos\u{E9}")
        await store.save(decomposed, for: "jose\u{301}")
        let again = try FileCognitoDeviceStore(path: path)
        #expect(await again.device(for: "jos\u{E9}")?.deviceKey == "us-east-1_composed")
        #expect(await again.device(for: "jose\u{301}")?.deviceKey == "us-east-1_decomposed")
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        #expect(text.contains(#""version":2"#) && text.contains(Hex.encode(Array("jos\u{E9}".utf8))))
        let legacy =
            #"{"version":1,"devices":{"alice":{"deviceKey":"us-east-1_old","deviceGroupKey":"-g","devicePassword":"cHc="}}}"#
        #expect(
            FileManager.default.createFile(
                atPath: path,
                contents: Data(legacy.utf8),
                attributes: [.posixPermissions: 0o600]
            )
        )
        #expect(await again.device(for: "alice")?.deviceKey == "us-east-1_old")
    }
}
