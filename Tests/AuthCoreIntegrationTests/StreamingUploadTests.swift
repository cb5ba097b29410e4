import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// Streamed bodies against ministack's S3 (AUTH=true, an IAM user's key), which checks the seed
/// signature and every aws-chunked chunk signature (`_chunk_signatures_match`, peers.md).
@Suite(
    "Streaming: a 64 MiB aws-chunked upload in constant memory, read back equal; a corrupted chunk refused",
    .serialized
)
final class StreamingUploadTests {
    let directory: URL
    let s3: [String: Any]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authcore-stream-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        s3 = try MinistackPool.helper(["s3-setup"])
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func text(_ key: String) throws -> String { try #require(s3[key] as? String) }

    var environment: [String: String?] {
        get throws {
            [
                "AWS_ACCESS_KEY_ID": try text("accessKeyId"), "AWS_SECRET_ACCESS_KEY": try text("secretAccessKey"),
                "AWS_SESSION_TOKEN": nil,
            ]
        }
    }

    func url(_ key: String) throws -> String { "\(try text("endpoint"))/\(try text("bucket"))/\(key)" }

    /// A file of `size` pseudo-random bytes (xorshift), written a MiB at a time.
    func makeFile(_ name: String, size: Int) throws -> String {
        let path = directory.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(size)
        var left = size
        while left > 0 {
            let count = Swift.min(left, 1 << 20)
            var block = [UInt8](repeating: 0, count: count)
            for index in 0..<count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                block[index] = UInt8(truncatingIfNeeded: state)
            }
            try handle.write(contentsOf: block)
            left -= count
        }
        return path
    }

    /// The CLI run under Python's `resource`: its result and its peak resident set (KiB).
    func measuredCLI(_ arguments: [String]) throws -> (result: ProcessResult, peakKiB: Int) {
        let run = try authcoreWithPeakResidentKiB(arguments, environment: try environment)
        #expect(run.peakKiB > 0, "\(run.result.stderr)")
        return run
    }

    func sameFiles(_ a: String, _ b: String) throws -> Bool {
        try run(URL(fileURLWithPath: "/usr/bin/cmp"), ["-s", a, b]).status == 0
    }

    @Test(
        "64 MiB streamed up with a signature per 64 KiB chunk and down to a file: equal, and the CLI's peak memory grows by under 8 MiB"
    )
    func largeUpload() throws {
        let small = try makeFile("small.bin", size: 100 << 10)
        let large = try makeFile("large.bin", size: 64 << 20)
        let base = ["sigv4", "send", "--region", try text("region"), "--service", "s3"]
        let baseline = try measuredCLI(base + ["--upload", small, "--aws-chunked", try url("small.bin")])
        #expect(baseline.result.status == 0, "\(baseline.result.stderr)")
        let upload = try measuredCLI(base + ["--upload", large, "--aws-chunked", try url("large.bin")])
        #expect(upload.result.status == 0, "\(upload.result.stderr)")
        // Under `make asan`/`make tsan` shadow memory and quarantine stay resident: the bound is for the normal build.
        if !builtWithSanitizer {
            #expect(
                upload.peakKiB - baseline.peakKiB < 8 << 10,
                "peak \(upload.peakKiB) KiB against \(baseline.peakKiB) KiB"
            )
        }

        let copy = directory.appendingPathComponent("copy.bin").path
        let download = try measuredCLI(base + ["--output", copy, try url("large.bin")])
        #expect(download.result.status == 0 && download.result.stdout.isEmpty, "\(download.result.stderr)")
        #expect(try sameFiles(large, copy))
        if !builtWithSanitizer {
            #expect(
                download.peakKiB - baseline.peakKiB < 8 << 10,
                "peak \(download.peakKiB) KiB against \(baseline.peakKiB) KiB"
            )
        }
        print(
            "streaming: peak RSS \(baseline.peakKiB) KiB (100 KiB upload), \(upload.peakKiB) KiB (64 MiB aws-chunked upload), \(download.peakKiB) KiB (64 MiB download)"
        )
        // Nothing is left beside the output but the output.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("copy.bin") } == [
                "copy.bin"
            ]
        )
        let mode = try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a streamed upload signed by its SHA-256 (hashed in a first pass) is accepted and read back equal")
    func hashedUpload() throws {
        let file = try makeFile("hashed.bin", size: 3 << 20)
        let base = ["sigv4", "send", "--region", try text("region"), "--service", "s3"]
        let upload = try authcore(base + ["--upload", file, try url("hashed.bin")], environment: try environment)
        #expect(upload.status == 0, "\(upload.stderr)")
        let copy = directory.appendingPathComponent("hashed.copy").path
        let download = try authcore(base + ["--output", copy, try url("hashed.bin")], environment: try environment)
        #expect(download.status == 0, "\(download.stderr)")
        #expect(try sameFiles(file, copy))
    }

    @Test("one byte changed in the second chunk after it was signed: the server refuses the upload")
    func corruptedChunk() async throws {
        let file = try makeFile("corrupt.bin", size: 200 << 10)
        let credentials = try Credentials(
            accessKeyId: try text("accessKeyId"),
            secretAccessKey: try text("secretAccessKey")
        )
        let signer = try SigV4Signer(credentials: credentials, region: try text("region"), service: "s3", options: .s3)
        let request = HTTPRequest(method: "PUT", url: try RequestURL(try url("corrupt.bin")))
        var signed = try AWSChunkedUpload.signed(
            request,
            payload: try HTTPBodyStream.file(file),
            signer: signer,
            at: Timestamp.now()
        )
        guard case .stream(let honest) = signed.body else {
            Issue.record("an aws-chunked upload's body is not a stream")
            return
        }
        signed.body = .stream(
            HTTPBodyStream(length: honest.length) { () throws(AuthCoreError) in Tampering(try honest.open()) }
        )
        var configuration = HTTP1Transport.Configuration()
        configuration.proxies = .configured(.direct)
        let transport = try HTTP1Transport(configuration: configuration)
        let refused = try await transport.send(signed)
        #expect(refused.status == 403, "\(String(decoding: refused.body.plainBytes, as: UTF8.self))")
        #expect(String(decoding: refused.body.plainBytes, as: UTF8.self).contains("SignatureDoesNotMatch"))
        // The same upload untouched is accepted (so the refusal is the changed byte's).
        let accepted = try await transport.send(
            try AWSChunkedUpload.signed(
                request,
                payload: try HTTPBodyStream.file(file),
                signer: signer,
                at: Timestamp.now()
            )
        )
        #expect(accepted.status == 200, "\(String(decoding: accepted.body.plainBytes, as: UTF8.self))")
    }

    /// Flips the last data byte of the second frame.
    final class Tampering: HTTPBodyChunks {
        let inner: any HTTPBodyChunks
        var frames = 0
        init(_ inner: any HTTPBodyChunks) { self.inner = inner }
        func next() throws(AuthCoreError) -> [UInt8]? {
            guard var frame = try inner.next() else { return nil }
            frames += 1
            if frames == 2, frame.count > 3 { frame[frame.count - 3] ^= 0x01 }  // before the trailing CRLF
            return frame
        }
    }
}
