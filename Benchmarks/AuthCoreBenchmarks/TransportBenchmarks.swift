import AuthCore
import AuthCoreClients
import AuthCoreServer
import Foundation

/// The default transport over loopback TLS, against the app server's own listener (libmicrohttpd
/// with TLS, a certificate from a throwaway CA made by the `openssl` command):
///
/// - `http.request.tls.keepalive`: one small GET on a kept connection (the pool's);
/// - `http.request.tls.new`: the same GET on a new connection each time (TCP + TLS handshake);
/// - `http.request.sigv4.get.keepalive`: a SigV4-signed GET through `SignedRequestSender` on a kept
///   connection (signing included; the listener does not verify).
///
/// The first two are sampled alternately, one request each, so the paired ratio (new / kept, the
/// median of per-pair ratios) is what keep-alive saves on this machine. Each row reports requests
/// per second from its median.
let transportRowNames = ["http.request.tls.keepalive", "http.request.tls.new", "http.request.sigv4.get.keepalive"]

/// The transport rows (``transportRowNames``), measured against a loopback TLS listener.
func transportResults(settings: HarnessSettings) -> [BenchmarkResult] {
    if let filter = settings.filter, !transportRowNames.contains(where: { $0.contains(filter) || filter.hasPrefix($0) })
    {
        return []
    }
    FileHandle.standardError.write(Data("\r[transport] http.request.tls\u{1B}[K".utf8))
    return runSynchronously { Unchecked(await transportRun(settings: settings)) }.value
}

/// A CA and a certificate for 127.0.0.1 in `directory`, by the `openssl` command.
private func makeCertificate(in directory: URL) -> (ca: String, certificate: String, key: String) {
    func openssl(_ arguments: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { loadFailure("the openssl command cannot run") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { loadFailure("openssl \(arguments.first ?? "") failed") }
    }
    let path = { (name: String) in directory.appendingPathComponent(name).path }
    openssl([
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("ca.key"),
        "-out", path("ca.pem"), "-days", "1",
        "-subj", "/CN=AuthCore bench CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
        "keyUsage=critical,keyCertSign",
    ])
    openssl([
        "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("server.key"), "-out",
        path("server.csr"), "-subj",
        "/CN=127.0.0.1",
    ])
    _ = FileManager.default.createFile(
        atPath: path("server.ext"),
        contents: Data("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".utf8)
    )
    openssl([
        "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
        "-out", path("server.pem"),
        "-days", "1", "-extfile", path("server.ext"),
    ])
    return (path("ca.pem"), path("server.pem"), path("server.key"))
}

private func transportRun(settings: HarnessSettings) async -> [BenchmarkResult] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "authcore-bench-tls-\(UUID().uuidString)"
    )
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = makeCertificate(in: directory)
        var listen = HTTPServer.Configuration()
        listen.tls = try HTTPServer.TLSIdentity(certificateFile: files.certificate, privateKeyFile: files.key)
        let server = try HTTPServer(configuration: listen) { _ in
            HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", "text/plain")], body: Array("ok".utf8))
        }
        func transport(keeping: Bool) throws -> HTTP1Transport {
            var configuration = HTTP1Transport.Configuration()
            configuration.trustedCertificatesFile = files.ca
            configuration.proxies = .configured(.direct)
            if !keeping { configuration.maximumIdleConnectionsPerHost = 0 }
            return try HTTP1Transport(configuration: configuration)
        }
        let kept = try transport(keeping: true)
        let fresh = try transport(keeping: false)
        let url = try RequestURL(server.url + "/bucket/object.txt")
        func once(_ transport: HTTP1Transport) async throws -> Double {
            let start = monotonicNanoseconds()
            let response = try await transport.send(HTTPRequest(method: "GET", url: url))
            guard response.status == 200, response.body.plainBytes == Array("ok".utf8) else {
                loadFailure("the TLS listener answered \(response.status)")
            }
            return Double(monotonicNanoseconds() - start)
        }
        let rounds = settings.quick ? 40 : 400
        for _ in 0..<10 {
            _ = try await once(kept)
            _ = try await once(fresh)
        }
        var keptSamples: [Double] = []
        var freshSamples: [Double] = []
        var ratios: [Double] = []
        for _ in 0..<rounds {
            let a = try await once(kept)
            let b = try await once(fresh)
            keptSamples.append(a)
            freshSamples.append(b)
            ratios.append(b / a)
        }
        let credentials = try Credentials(
            accessKeyId: "AKIAIOSFODNN7EXAMPLE",
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        )
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3)
        let sender = SignedRequestSender(transport: kept)
        var signedSamples: [Double] = []
        for index in 0..<(rounds + 10) {
            let start = monotonicNanoseconds()
            let response = try await sender.send(HTTPRequest(method: "GET", url: url)) {
                request,
                time throws(AuthCoreError) in
                request.adding(try signer.sign(request.sigV4Request(payload: .unsigned), at: time))
            }
            guard response.status == 200 else {
                loadFailure("the TLS listener answered \(response.status) to a signed GET")
            }
            if index >= 10 { signedSamples.append(Double(monotonicNanoseconds() - start)) }
        }
        await server.stop()

        let ratio = Percentiles(ratios).p50
        func row(_ name: String, _ samples: [Double], note: String) -> BenchmarkResult {
            let spread = Percentiles(samples)
            var result = BenchmarkResult(
                name: name,
                percentiles: spread,
                iterations: samples.count,
                note: String(format: "%.0f requests/s; ", 1e9 / spread.p50) + note
            )
            result.extra = ["requests_per_second": (1e9 / spread.p50).rounded()]
            return result
        }
        var new = row(
            "http.request.tls.new",
            freshSamples,
            note: String(format: "a new TCP + TLS 1.3 connection each time: %.2fx the kept one (paired)", ratio)
        )
        (new.pairedRatio, new.pairedWith) = (ratio, "http.request.tls.keepalive")
        return [
            row(
                "http.request.tls.keepalive",
                keptSamples,
                note: "one small GET on a pooled connection (loopback, libmicrohttpd with TLS)"
            ),
            new,
            row(
                "http.request.sigv4.get.keepalive",
                signedSamples,
                note: "SigV4 (S3) signing + the GET on a pooled connection"
            ),
        ]
    } catch {
        loadFailure("transport benchmark: \(error)")
    }
}
