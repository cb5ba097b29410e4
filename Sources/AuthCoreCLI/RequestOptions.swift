import AuthCore
import AuthCoreClients
import Foundation

/// Options shared by `sigv4` and `oss` (`sign|presign|send`).
struct RequestOptions {
    static let specs: [OptionSpec] = [
        OptionSpec(names: ["-X", "--request"], kind: .value), OptionSpec(names: ["-H", "--header"], kind: .repeatedValue),
        OptionSpec(names: ["-d", "--data"], kind: .value), OptionSpec(names: ["--data-file"], kind: .value),
        OptionSpec(names: ["--timestamp"], kind: .value), OptionSpec(names: ["--expires"], kind: .value),
        OptionSpec(names: ["--verbose"], kind: .flag), OptionSpec(names: ["--clock-offset"], kind: .value),
        OptionSpec(names: ["--no-skew-correction"], kind: .flag), OptionSpec(names: ["--region"], kind: .value),
    ]

    let action: String
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

    init(_ arguments: ArraySlice<String>, extraSpecs: [OptionSpec], help: String) throws {
        guard let action = arguments.first else { throw UsageError("missing action (sign, presign or send)") }
        if action == "-h" || action == "--help" { throw HelpRequested(text: help) }
        guard ["sign", "presign", "send"].contains(action) else {
            throw UsageError("unknown action '\(action)' (expected sign, presign or send)")
        }
        self.action = action
        let parsed = try parseArguments(arguments.dropFirst(), specs: Self.specs + extraSpecs, help: help)
        self.parsed = parsed
        guard parsed.positionals.count == 1 else {
            throw UsageError(parsed.positionals.isEmpty ? "missing URL" : "expected one URL, got \(parsed.positionals.count) arguments")
        }
        do { url = try RequestURL(parsed.positionals[0]) } catch { throw UsageError(error.reason) }
        var headers: [HTTPHeader] = []
        for raw in parsed.all("-H") + parsed.all("--header") {
            guard let colon = raw.firstIndex(of: ":") else { throw UsageError("header '\(raw)' must be 'Name: value'") }
            let name = String(raw[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(raw[raw.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            let header = HTTPHeader(name, value)
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
                throw UsageError("header name '\(name)' is not valid")
            }
            headers.append(header)
        }
        self.headers = headers
        let data = parsed.value("-d") ?? parsed.value("--data")
        let file = parsed.value("--data-file")
        if data != nil && file != nil { throw UsageError("use either -d or --data-file, not both") }
        if let file {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw UsageError("cannot read --data-file \(file)")
            }
            body = [UInt8](contents)
        } else {
            body = data.map { Array($0.utf8) } ?? []
        }
        hasBody = data != nil || file != nil
        method = (parsed.value("-X") ?? parsed.value("--request") ?? (hasBody ? "POST" : "GET")).uppercased()
        timestampText = parsed.value("--timestamp")
        expires = try parsed.integer("--expires", expecting: "seconds") ?? 3600
        verbose = parsed.has("--verbose")
        clockOffset = Int64(try parsed.integer("--clock-offset", expecting: "seconds") ?? 0)
        skewCorrection = !parsed.has("--no-skew-correction")
        if timestampText != nil && action == "send" && skewCorrection == false {
            // A fixed timestamp is allowed for send (it then behaves like a clock stopped at that instant).
        }
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

    /// Sends through the skew-correcting sender and reports the response as the CLI contract says.
    func send(_ request: HTTPRequest, clock: any SigningClock, sign: (HTTPRequest, Timestamp) throws(AuthCoreError) -> HTTPRequest)
        async throws -> Int32
    {
        let sender = SignedRequestSender(
            transport: URLSessionTransport(), clock: clock, skew: skewCorrection ? ClockSkewTracker() : nil)
        let response: HTTPResponse
        do { response = try await sender.send(request, sign: sign) } catch {
            throw CommandFailure(error.reason)
        }
        if response.isSuccess {
            writeOut(bytes: response.body)
            return 0
        }
        printError("HTTP \(response.status): \(ServiceErrorBody(response: response).summary)")
        if !response.body.isEmpty { writeAll(2, String(decoding: response.body, as: UTF8.self) + "\n") }
        return 1
    }
}

/// Credentials from the environment (an empty variable counts as unset).
func credentialsFromEnvironment(id: String, secret: String, token: String, expiration: String? = nil) throws -> Credentials {
    guard let accessKey = environment(id), let secretKey = environment(secret) else {
        throw UsageError("\(id) and \(secret) must be set in the environment (credentials never come from arguments)")
    }
    var expires: Timestamp?
    if let expiration, let text = environment(expiration) {
        do { expires = try Timestamp(iso8601: text) } catch { throw UsageError("\(expiration): \(error.reason)") }
    }
    do {
        return try Credentials(accessKeyId: accessKey, secretAccessKey: secretKey, sessionToken: environment(token), expiration: expires)
    } catch {
        throw UsageError(error.reason)
    }
}

/// Runs an async body from synchronous `main` code.
func runAsync(_ body: @escaping @Sendable () async throws -> Int32) throws -> Int32 {
    let box = ResultBox()
    let semaphore = DispatchSemaphore(value: 0)
    Task {
        do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
        semaphore.signal()
    }
    semaphore.wait()
    return try box.get()
}

final class ResultBox: @unchecked Sendable {
    // invariant: written once by the task before the semaphore is signalled, read after the wait.
    private var result: Result<Int32, any Error> = .success(1)
    func set(_ value: Result<Int32, any Error>) { result = value }
    func get() throws -> Int32 { try result.get() }
}
