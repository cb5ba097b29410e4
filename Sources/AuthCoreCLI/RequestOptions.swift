import AuthCore
import AuthCoreClients
import Foundation

/// Options shared by `sigv4` and `oss` (`sign|presign|send`).
struct RequestOptions {
    /// The largest `--data-file` read (the transport's response cap, the same order of size).
    static let maximumBodyBytes = 64 << 20
    /// The largest `--clock-offset`, either way: one year.
    static let maximumClockOffset = 31_536_000
    static let specs: [OptionSpec] = [
        OptionSpec(names: ["-X", "--request"], kind: .value),
        OptionSpec(names: ["-H", "--header"], kind: .repeatedValue),
        OptionSpec(names: ["-d", "--data"], kind: .value), OptionSpec(names: ["--data-file"], kind: .value),
        OptionSpec(names: ["--data-raw"], kind: .value),
        OptionSpec(names: ["--timestamp"], kind: .value), OptionSpec(names: ["--expires"], kind: .value),
        OptionSpec(names: ["--verbose"], kind: .flag), OptionSpec(names: ["--clock-offset"], kind: .value),
        OptionSpec(names: ["--no-skew-correction"], kind: .flag), OptionSpec(names: ["--region"], kind: .value),
        OptionSpec(names: ["--output"], kind: .value),
    ]

    let action: String
    /// Whose trust settings the transport follows (``CLITransport``).
    let service: CLITransport.Service
    let method: String
    let url: RequestURL
    let headers: [HTTPHeader]
    let body: [UInt8]
    let hasBody: Bool
    let timestampText: String?
    let expires: Int
    let verbose: Bool
    let clockOffset: Int64
    let skewCorrection: Bool
    let parsed: ParsedArguments

    init(_ arguments: ArraySlice<String>, service: CLITransport.Service, extraSpecs: [OptionSpec], help: String) throws
    {
        self.service = service
        guard let action = arguments.first else { throw UsageError("missing action (sign, presign or send)") }
        if action == "-h" || action == "--help" { throw HelpRequested(text: help) }
        guard ["sign", "presign", "send"].contains(action) else {
            throw UsageError(
                "unknown action '\(action)' (expected sign, presign or send)\(didYouMean(action, among: ["sign", "presign", "send"]))"
            )
        }
        self.action = action
        let parsed = try parseArguments(arguments.dropFirst(), specs: Self.specs + extraSpecs, help: help)
        self.parsed = parsed
        guard parsed.positionals.count == 1 else {
            throw UsageError(
                parsed.positionals.isEmpty
                    ? "missing URL" : "expected one URL, got \(parsed.positionals.count) arguments"
            )
        }
        do { url = try RequestURL(parsed.positionals[0]) } catch { throw UsageError(error.reason) }
        headers = try (parsed.all("-H") + parsed.all("--header")).map(Self.requestHeader)
        let data = parsed.value("-d") ?? parsed.value("--data")
        let raw = parsed.value("--data-raw")
        let file = parsed.value("--data-file")
        guard [data, raw, file].compactMap({ $0 }).count <= 1 else {
            throw UsageError("use one of -d, --data-raw and --data-file")
        }
        if let file {
            body = try readFile(file, limit: Self.maximumBodyBytes, option: "--data-file")
        } else if let data, data.hasPrefix("@") {
            // curl's convention: -d @FILE reads FILE (-d @- standard input). Text that may start with
            // '@' (a user's, passed on by a script) goes through --data-raw, which never reads a file.
            body = try readFile(String(data.dropFirst()), limit: Self.maximumBodyBytes, option: "-d @")
        } else {
            body = Array((data ?? raw ?? "").utf8)
        }
        hasBody = data != nil || raw != nil || file != nil
        method = (parsed.value("-X") ?? parsed.value("--request") ?? (hasBody ? "POST" : "GET")).uppercased()
        timestampText = parsed.value("--timestamp")
        expires = try parsed.integer("--expires", expecting: "seconds") ?? 3600
        verbose = parsed.has("--verbose")
        let offset = try parsed.integer("--clock-offset", expecting: "seconds") ?? 0
        guard (-Self.maximumClockOffset...Self.maximumClockOffset).contains(offset) else {
            throw UsageError(
                "--clock-offset must be within ±\(Self.maximumClockOffset) seconds (one year), got \(offset)"
            )
        }
        clockOffset = Int64(offset)
        skewCorrection = !parsed.has("--no-skew-correction")
        guard action == "send" || parsed.value("--output") == nil else { throw UsageError("--output goes with send") }
        if timestampText != nil && action == "send" && skewCorrection == false {
            // A fixed timestamp is allowed for send (it then behaves like a clock stopped at that instant).
        }
    }

    /// A `-H 'Name: value'` header (also `--signer-header`): name and value trimmed, then checked by
    /// HTTP's one rule (`HTTPHeader.validate`: a token name, a value without control bytes).
    ///
    /// Errors never echo the argument: a mistyped value may be a secret.
    static func header(_ raw: String) throws -> HTTPHeader {
        guard let (rawName, rawValue) = raw.cutOnce(atFirst: UInt8(ascii: ":")) else {
            throw UsageError("a header must be 'Name: value' (an argument of \(raw.utf8.count) bytes has no ':')")
        }
        let name = rawName.trimmingASCIISpaces
        let value = rawValue.trimmingASCIISpaces
        guard HTTPHeader.isFieldName(name.utf8) else {
            throw UsageError("a header name must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~)")
        }
        guard HTTPHeader.isFieldValue(value.utf8) else {
            throw UsageError("a header value must not hold a control byte (0x00-0x1F other than tab, or 0x7F)")
        }
        return HTTPHeader(name, value)
    }

    /// A `-H` header for the signed request: one that carries a credential (`Authorization`, a
    /// session token, a cookie) is refused, since secrets never come from argv (credentials come
    /// from the environment, and the signer writes its own).
    static func requestHeader(_ raw: String) throws -> HTTPHeader {
        let header = try header(raw)
        guard !header.holdsCredential else {
            throw UsageError(
                "-H \(header.name): a credential header cannot be given in argv (credentials come from the environment)"
            )
        }
        return header
    }

    /// The canonical request as `--verbose` prints it: the values of credential headers (the
    /// session token) and of session-token query parameters shown as `<redacted>`.
    static func redactedCanonicalRequest(_ text: String) -> String {
        text.pieces(separatedBy: UInt8(ascii: "\n")).enumerated().map { index, line -> String in
            // The canonical query (SigV4 and OSS V4 layout: method, path, query, ...).
            if index == 2 { return RequestURL.redactingCredentials(query: line[...]) }
            guard let (name, _) = line.cutOnce(atFirst: UInt8(ascii: ":")), HTTPHeader(name, "").holdsCredential else {
                return line
            }
            return "\(name):<redacted>"
        }.joined(separator: "\n")
    }

    /// The local clock: fixed by `--timestamp` (parsed by `parse`), else the system clock, shifted by `--clock-offset`.
    func clock(parse: (String) throws(AuthCoreError) -> Timestamp) throws -> any SigningClock {
        if let timestampText {
            do { return OffsetClock(FixedClock(try parse(timestampText)), offsetSeconds: clockOffset) } catch {
                throw UsageError("--timestamp: \(error.reason)")
            }
        }
        return OffsetClock(SystemClock(), offsetSeconds: clockOffset)
    }

    /// Runs the `sigv4`/`oss` action: `sign` prints the headers to add, `presign` the URL, and `send`
    /// (the default) sends the request, signed afresh at each attempt.
    func perform<Signature: CommandSignature>(
        _ request: HTTPRequest,
        clock: any SigningClock,
        report: @escaping @Sendable (Signature) -> Void,
        sign: @escaping @Sendable (HTTPRequest, Timestamp) async throws(AuthCoreError) -> Signature,
        presign: (HTTPRequest, Timestamp) async throws(AuthCoreError) -> Signature
    ) async throws -> Int32 {
        switch action {
        case "sign":
            do {
                let signature = try await sign(request, clock.now())
                report(signature)
                // Piece by piece: a header value may be a session token, and a line or a joined
                // String would be one more unwipeable copy of it (zeroize-check counts them).
                for header in signature.headers {
                    writeAll(1, header.name)
                    writeAll(1, ": ")
                    writeAll(1, header.value)
                    writeAll(1, "\n")
                }
                return 0
            } catch {
                throw CommandFailure(error.reason)
            }
        case "presign":
            do {
                let signature = try await presign(request, clock.now())
                report(signature)
                printOut(url.origin + (signature.signedURI ?? ""))
                return 0
            } catch {
                throw error.code == .invalidParameter ? UsageError(error.reason) : CommandFailure(error.reason)
            }
        default:
            return try await send(request, clock: clock) { request, time throws(AuthCoreError) in
                let signature = try await sign(request, time)
                report(signature)
                return signature.added(to: request)
            }
        }
    }

    /// Sends through the skew-correcting sender (on ``service``'s transport, ``CLITransport``) and
    /// reports the response as the CLI contract says.
    func send(
        _ request: HTTPRequest,
        clock: any SigningClock,
        sign: (HTTPRequest, Timestamp) async throws(AuthCoreError) -> HTTPRequest
    )
        async throws -> Int32
    {
        var request = request
        if let output = parsed.value("--output") {
            do { request.responseSink = try HTTPResponseSink.file(output) } catch {
                throw UsageError("--output: \(error.reason)")
            }
            // Written to a file as it arrives: the size is the disk's to bound, not memory's.
            request.maximumResponseBytes = Int.max
        }
        // A large transfer may take long; every wait for the next bytes is still bounded (60 s).
        let transport = try CLITransport.make(
            for: service,
            longTransfers: request.responseSink != nil || request.body.isStream
        )
        let sender = SignedRequestSender(
            transport: transport,
            clock: clock,
            skew: skewCorrection ? ClockSkewTracker() : nil
        )
        let response: HTTPResponse
        do { response = try await sender.send(request, sign: sign) } catch {
            throw CommandFailure(error.reason)
        }
        if response.isSuccess {
            if request.responseSink == nil { writeOut(bytes: response.body.plainBytes) }
            return 0
        }
        printError("HTTP \(response.status): \(ServiceErrorBody(response: response).summary)")
        if !response.body.isEmpty { writeAll(2, String(decoding: response.body.plainBytes, as: UTF8.self) + "\n") }
        return 1
    }
}

/// Credentials from the environment (an empty variable counts as unset).
func credentialsFromEnvironment(
    id: String,
    secret: String,
    token: String,
    expiration: String? = nil
) throws -> Credentials {
    guard let accessKey = environment(id), let secretKey = takeSecretEnvironment(secret) else {
        throw UsageError("\(id) and \(secret) must be set in the environment (credentials never come from arguments)")
    }
    var expires: Timestamp?
    if let expiration, let text = environment(expiration) {
        do { expires = try Timestamp(iso8601: text) } catch { throw UsageError("\(expiration): \(error.reason)") }
    }
    do {
        return try Credentials(
            accessKeyId: accessKey,
            secretAccessKey: secretKey,
            sessionToken: environment(token),
            expiration: expires
        )
    } catch {
        throw UsageError(error.reason)
    }
}

/// What `sign`, `presign` and `send` need from a signature, for either signer.
protocol CommandSignature: Sendable {
    var headers: [HTTPHeader] { get }
    var signedURI: String? { get }
    func added(to request: HTTPRequest) -> HTTPRequest
}

extension SigV4Signature: CommandSignature {
    func added(to request: HTTPRequest) -> HTTPRequest { request.adding(self) }
}

extension SigV4ASignature: CommandSignature {
    func added(to request: HTTPRequest) -> HTTPRequest { request.adding(self) }
}

extension OSSSignature: CommandSignature {
    func added(to request: HTTPRequest) -> HTTPRequest { request.adding(self) }
}
