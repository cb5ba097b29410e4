import AuthCore
import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCoreClients
@testable import AuthCoreHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The pieces of streaming that need no peer: aws-chunked frames against their announced length,
/// and a file sink that fails after it has begun the file.
@Suite("Streaming pieces: aws-chunked frames, file sinks that fail")
struct StreamingPiecesTests {
    func frames(decodedLength: Int, pieces: [[UInt8]], chunkSize: Int = 8192) throws -> [[UInt8]] {
        let credentials = try Credentials(
            accessKeyId: "AKIAIOSFODNN7EXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        )
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3)
        let time = try #require(Timestamp(year: 2026, month: 12, day: 5, hour: 12))
        let seed = try signer.sign(
            SigV4Request(
                method: "PUT",
                target: "/b/k",
                headers: [HTTPHeader("Host", "s3.amazonaws.com")],
                payload: .streaming
            ),
            at: time
        )
        let reader = AWSChunkedFrames(
            payload: ListedChunks(pieces),
            decodedLength: decodedLength,
            chunkSize: chunkSize,
            signer: SigV4ChunkSigner(signer: signer, seed: seed)
        )
        var all: [[UInt8]] = []
        while let frame = try reader.next() { all.append(frame) }
        return all
    }

    @Test(
        "frames add up to encodedLength: equal chunks but the last, then the empty one (0 bytes, exact multiples, a remainder)",
        arguments: [0, 1, 8192, 3 * 8192, 3 * 8192 + 5]
    )
    func framesMatchEncodedLength(length: Int) throws {
        // Pieces of an awkward size, so the frames must regroup them.
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let pieces = stride(from: 0, to: length, by: 3000).map { Array(payload[$0..<Swift.min(length, $0 + 3000)]) }
        let all = try frames(decodedLength: length, pieces: pieces)
        #expect(
            all.reduce(0) { $0 + $1.count }
                == (try SigV4ChunkSigner.encodedLength(decodedLength: length, chunkSize: 8192))
        )
        #expect(all.count == (length + 8191) / 8192 + 1)
        let last = try #require(all.last)
        #expect(
            last.starts(with: Array("0;chunk-signature=".utf8)) && last.suffix(4).elementsEqual([13, 10, 13, 10])
                && last.count == 86
        )
        for frame in all.dropLast().dropLast() { #expect(frame.starts(with: Array("2000;chunk-signature=".utf8))) }
    }

    @Test("a payload longer or shorter than its decoded length fails before a frame of the difference")
    func payloadLengthChecked() throws {
        #expect(throws: AuthCoreError(.malformedRequest, "")) {
            try frames(decodedLength: 10, pieces: [Array(repeating: 1, count: 11)])
        }
        #expect(throws: AuthCoreError(.malformedRequest, "")) {
            try frames(decodedLength: 10, pieces: [Array(repeating: 1, count: 9)])
        }
    }

    /// Serves one answer written in two parts, then closes.
    func serve(_ first: String, _ second: String) throws -> Int {
        let listener = try OneShotListener()
        Thread.detachNewThread { _ = listener.serveOnce(first + second) }
        return listener.port
    }

    func transport() throws -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(.direct)
        return try HTTP1Transport(configuration: configuration)
    }

    @Test(
        "a file sink whose answer fails after the file was begun (over the cap mid-body, cut short) leaves nothing; a whole one is in place"
    )
    func fileSinkCleanup() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-sink-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("out").path
        try Data("what was there before".utf8).write(to: URL(fileURLWithPath: target))
        let chunk = String(repeating: "x", count: 4000)
        // Chunked, past the cap in its third chunk: the file exists by then.
        let overCap = try serve(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
            "fa0\r\n\(chunk)\r\n" + "fa0\r\n\(chunk)\r\n" + "fa0\r\n\(chunk)\r\n0\r\n\r\n"
        )
        var request = HTTPRequest(
            method: "GET",
            url: try RequestURL("http://127.0.0.1:\(overCap)/"),
            maximumResponseBytes: 10_000
        )
        request.responseSink = try HTTPResponseSink.file(target)
        await #expect(throws: AuthCoreError(.inputTooLarge, "")) { try await transport().send(request) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out"])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "what was there before")
        // Cut short: 10 of 1000 announced bytes, then the close.
        let cut = try serve("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", "0123456789")
        request = HTTPRequest(method: "GET", url: try RequestURL("http://127.0.0.1:\(cut)/"))
        request.responseSink = try HTTPResponseSink.file(target)
        await #expect(throws: AuthCoreError(.transportFailure, "")) { try await transport().send(request) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out"])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "what was there before")
        // Whole: in place, 0600.
        let whole = try serve("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\n", "fresh")
        request = HTTPRequest(method: "GET", url: try RequestURL("http://127.0.0.1:\(whole)/"))
        request.responseSink = try HTTPResponseSink.file(target)
        #expect(try await transport().send(request).status == 200)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "fresh")
        #expect(try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out"])
        // A directory, or a directory that cannot be written, is refused before anything is sent.
        #expect(throws: AuthCoreError(.invalidParameter, "")) { try HTTPResponseSink.file(directory.path) }
        #expect(throws: AuthCoreError(.invalidParameter, "")) {
            try HTTPResponseSink.file(directory.path + "/missing/out")
        }
    }

    @Test(
        "a source that gives an empty chunk fails the request; a transport that cannot stream is refused by the sender"
    )
    func misbehavingSources() async throws {
        let port = try serve("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", "")
        var request = HTTPRequest(method: "PUT", url: try RequestURL("http://127.0.0.1:\(port)/"))
        request.body = .stream(HTTPBodyStream(length: nil) { ListedChunks([Array("a".utf8), [], Array("b".utf8)]) })
        await #expect(throws: AuthCoreError(.invalidParameter, "")) { try await transport().send(request) }
        let sender = SignedRequestSender(transport: URLSessionTransport())
        await #expect(throws: AuthCoreError(.unsupported, "")) {
            try await sender.send(request) { request, _ throws(AuthCoreError) in request }
        }
        request.body = .stream(HTTPBodyStream(length: -5) { ListedChunks([]) })
        await #expect(throws: AuthCoreError(.malformedRequest, "")) { try await transport().send(request) }
    }
}
