import AuthCore
import AuthCoreClients
import Foundation

enum SigV4Command {
    static let help = """
        OVERVIEW: Sign, presign or send a request with AWS Signature Version 4.

        USAGE: authcore sigv4 sign|presign|send [--profile NAME] ([--region R] | --sigv4a [--region R | --region-set R1,R2|*]) --service S [-X METHOD] [-H 'Name: value']...
               [-d TEXT | -d @FILE | --data-raw TEXT | --data-file FILE|-] [--s3 | --no-s3] [--unsigned-payload] [--timestamp YYYYMMDDTHHMMSSZ]
               [--expires SECONDS] [--verbose] [--clock-offset SECONDS] [--no-skew-correction]
               [--upload FILE [--aws-chunked]] [--output FILE] URL

        Credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (never
        from arguments); AWS_CREDENTIAL_EXPIRATION (ISO 8601), when set, bounds presigned URLs. Without
        them, or with --profile, the AWS default chain resolves them ('authcore aws credentials --help'),
        and the region defaults to AWS_REGION, AWS_DEFAULT_REGION or the profile's region.

        ACTIONS:
          sign      Print the headers to add, one 'Name: value' per line: X-Amz-Date,
                    X-Amz-Security-Token (if any), X-Amz-Content-SHA256 (if any), Authorization.
          presign   Print a presigned URL (--expires seconds, default 3600, at most 604800).
          send      Sign and send; the body goes to stdout; exit 0 only for a 2xx status, otherwise
                    'HTTP <status>: <code>: <message>' and the body on stderr, exit 1.

        OPTIONS:
          --region R, --service S   Credential scope (the region from the chain when not given).
          --profile NAME            A profile of ~/.aws/config and ~/.aws/credentials (environment keys unread).
          --sigv4a                  Sign with SigV4a (AWS4-ECDSA-P256-SHA256: an ECDSA P-256 key derived from
                                    the credentials) for the regions of --region-set (or --region), sent as
                                    X-Amz-Region-Set; sign prints it after X-Amz-Date. Not with --upload.
          --region-set R1,R2|*      With --sigv4a: the regions the signature is valid in (* for all).
          -X METHOD                 HTTP method (default GET, or POST with a body).
          -H 'Name: value'          A header to sign and send (repeatable); Host comes from the URL.
          -d TEXT, --data-file FILE The body; -d @FILE and --data-file - read a file or stdin;
          --data-raw TEXT           the body as given, even when it starts with @.
          --s3                      S3 rules: path used verbatim (no second encoding, no normalisation),
                                    x-amz-content-sha256 signed. The default for --service s3.
          --no-s3                   The standard rules, even for --service s3.
          --unsigned-payload        Sign UNSIGNED-PAYLOAD instead of the body's hash.
          --timestamp T             Sign at T (YYYYMMDDTHHMMSSZ) instead of the clock.
          --verbose                 Print the canonical request (session token redacted) and string to sign on stderr.
          --clock-offset SECONDS    Behave as if the local clock were off by SECONDS.
          --no-skew-correction      Do not learn the server's clock from a skew refusal and retry.
          --upload FILE             send: stream FILE as the body (default method PUT), in constant memory;
                                    its SHA-256 is signed (read once to hash, once to send) unless
                                    --unsigned-payload or --aws-chunked.
          --aws-chunked             With --upload: sign each 64 KiB chunk (STREAMING-AWS4-HMAC-SHA256-PAYLOAD).
          --output FILE             send: write a 2xx answer's body to FILE (0600, put in place only when
                                    whole) instead of stdout.
          -h, --help                Show this help.
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        let options = try RequestOptions(
            arguments,
            service: .aws,
            extraSpecs: [
                OptionSpec(names: ["--service"], kind: .value), OptionSpec(names: ["--s3"], kind: .flag),
                OptionSpec(names: ["--no-s3"], kind: .flag),
                OptionSpec(names: ["--unsigned-payload"], kind: .flag), OptionSpec(names: ["--upload"], kind: .value),
                OptionSpec(names: ["--aws-chunked"], kind: .flag), OptionSpec(names: ["--sigv4a"], kind: .flag),
                OptionSpec(names: ["--region-set"], kind: .value), OptionSpec(names: ["--profile"], kind: .value),
            ],
            help: help
        )
        let service = try options.parsed.required("--service")
        // S3's rules for the s3 service unless --no-s3 says otherwise (the AWS CLI's habit).
        guard !(options.parsed.has("--s3") && options.parsed.has("--no-s3")) else {
            throw UsageError("use either --s3 or --no-s3, not both")
        }
        let s3 = options.parsed.has("--s3") || (service == "s3" && !options.parsed.has("--no-s3"))
        let unsigned = options.parsed.has("--unsigned-payload")
        let resolved = try await AWSChainCredentials.resolve(profile: options.parsed.value("--profile"))
        let credentials = resolved.credentials
        var signingOptions: SigV4Options = s3 ? .s3 : .standard
        if unsigned { signingOptions.addContentSHA256Header = true }
        if options.parsed.has("--sigv4a") {
            return try await runSigV4A(
                options: options,
                credentials: credentials,
                service: service,
                signingOptions: signingOptions,
                s3: s3,
                unsigned: unsigned,
                chainRegion: resolved.region
            )
        }
        guard options.parsed.value("--region-set") == nil else { throw UsageError("--region-set goes with --sigv4a") }
        guard let region = options.parsed.value("--region") ?? resolved.region, !region.isEmpty else {
            throw UsageError("missing required option --region (or AWS_REGION, AWS_DEFAULT_REGION, a profile's region)")
        }
        let signer: SigV4Signer
        do {
            signer = try SigV4Signer(
                credentials: credentials,
                region: region,
                service: service,
                options: signingOptions
            )
        } catch {
            throw UsageError(error.reason)
        }
        let clock = try options.clock { text throws(AuthCoreError) in try Timestamp(amzDate: text) }
        if let upload = options.parsed.value("--upload") {
            return try await sendUpload(upload, options: options, signer: signer, unsigned: unsigned, clock: clock)
        }
        guard !options.parsed.has("--aws-chunked") else { throw UsageError("--aws-chunked goes with --upload FILE") }
        let request = HTTPRequest(
            method: options.method,
            url: options.url,
            headers: options.headers,
            body: options.body
        )
        let payload: SigV4Payload = unsigned ? .unsigned : .bytes(options.body)
        let verbose = options.verbose

        @Sendable func report(_ signature: SigV4Signature) {
            guard verbose else { return }
            printError(
                "--- canonical request\n\(RequestOptions.redactedCanonicalRequest(signature.canonicalRequest ?? ""))\n--- string to sign\n\(signature.stringToSign)"
            )
        }

        if options.action == "presign" {
            guard (1...SigV4Signer.maximumPresignedExpiry).contains(options.expires) else {
                throw UsageError("--expires must be 1...\(SigV4Signer.maximumPresignedExpiry) seconds")
            }
        }
        let presignPayload: SigV4Payload = (unsigned || s3) ? .unsigned : .bytes(options.body)
        return try await options.perform(
            request,
            clock: clock,
            report: report,
            sign: { request, time throws(AuthCoreError) in
                try signer.sign(request.sigV4Request(payload: payload), at: time, keepingCanonicalRequest: verbose)
            },
            presign: { request, time throws(AuthCoreError) in
                try signer.presign(
                    request.sigV4Request(payload: presignPayload),
                    at: time,
                    expires: options.expires,
                    keepingCanonicalRequest: verbose
                )
            }
        )
    }

    /// `--sigv4a`: the same actions with a SigV4a signer for the regions of `--region-set` (or `--region`).
    static func runSigV4A(
        options: RequestOptions,
        credentials: Credentials,
        service: String,
        signingOptions: SigV4Options,
        s3: Bool,
        unsigned: Bool,
        chainRegion: String?
    ) async throws -> Int32 {
        guard options.parsed.value("--upload") == nil, !options.parsed.has("--aws-chunked") else {
            throw UsageError("--sigv4a does not stream: no --upload or --aws-chunked")
        }
        guard options.parsed.value("--region-set") == nil || options.parsed.value("--region") == nil else {
            throw UsageError("use either --region-set or --region with --sigv4a, not both")
        }
        guard let regions = options.parsed.value("--region-set") ?? options.parsed.value("--region") ?? chainRegion
        else {
            throw UsageError("--sigv4a needs --region-set R1,R2|* or --region R")
        }
        let signer: SigV4ASigner
        do {
            signer = try SigV4ASigner(
                credentials: credentials,
                regionSet: Array(regions.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
                    .map { String(decoding: $0, as: UTF8.self) },
                service: service,
                options: signingOptions
            )
        } catch {
            throw error.code == .invalidParameter ? UsageError(error.reason) : CommandFailure(error.reason)
        }
        let clock = try options.clock { text throws(AuthCoreError) in try Timestamp(amzDate: text) }
        if options.action == "presign" {
            guard (1...SigV4Signer.maximumPresignedExpiry).contains(options.expires) else {
                throw UsageError("--expires must be 1...\(SigV4Signer.maximumPresignedExpiry) seconds")
            }
        }
        let request = HTTPRequest(
            method: options.method,
            url: options.url,
            headers: options.headers,
            body: options.body
        )
        let payload: SigV4Payload = unsigned ? .unsigned : .bytes(options.body)
        let presignPayload: SigV4Payload = (unsigned || s3) ? .unsigned : .bytes(options.body)
        let verbose = options.verbose
        @Sendable func report(_ signature: SigV4ASignature) {
            guard verbose else { return }
            printError(
                "--- canonical request\n\(RequestOptions.redactedCanonicalRequest(signature.canonicalRequest ?? ""))\n--- string to sign\n\(signature.stringToSign)"
            )
        }
        return try await options.perform(
            request,
            clock: clock,
            report: report,
            sign: { request, time throws(AuthCoreError) in
                try signer.sign(request.sigV4Request(payload: payload), at: time, keepingCanonicalRequest: verbose)
            },
            presign: { request, time throws(AuthCoreError) in
                try signer.presign(
                    request.sigV4Request(payload: presignPayload),
                    at: time,
                    expires: options.expires,
                    keepingCanonicalRequest: verbose
                )
            }
        )
    }

    /// `send --upload FILE`: the file streamed as the body, signed by its SHA-256 (hashed in a first
    /// pass), as UNSIGNED-PAYLOAD, or chunk by chunk (`--aws-chunked`).
    static func sendUpload(
        _ path: String,
        options: RequestOptions,
        signer: SigV4Signer,
        unsigned: Bool,
        clock: any SigningClock
    ) async throws -> Int32 {
        guard options.action == "send" else { throw UsageError("--upload goes with send") }
        guard !options.hasBody else {
            throw UsageError("use either --upload or a body (-d, --data-raw, --data-file), not both")
        }
        let chunked = options.parsed.has("--aws-chunked")
        guard !(chunked && unsigned) else {
            throw UsageError("use either --aws-chunked or --unsigned-payload, not both")
        }
        guard !(chunked && options.verbose) else {
            throw UsageError("--verbose does not print the chunk signatures of --aws-chunked")
        }
        let payload: HTTPBodyStream
        do { payload = try HTTPBodyStream.file(path) } catch { throw UsageError("--upload: \(error.reason)") }
        let method = options.parsed.value("-X") ?? options.parsed.value("--request") ?? "PUT"
        let request = HTTPRequest(method: method.uppercased(), url: options.url, headers: options.headers)
        let verbose = options.verbose
        if chunked {
            return try await options.send(request, clock: clock) { request, time throws(AuthCoreError) in
                try AWSChunkedUpload.signed(request, payload: payload, signer: signer, at: time)
            }
        }
        let signedPayload: SigV4Payload
        if unsigned {
            signedPayload = .unsigned
        } else {
            var hash = SHA256()
            do {
                let chunks = try payload.open()
                while let chunk = try chunks.next() { chunk.withUnsafeBytes { hash.update(bufferPointer: $0) } }
            } catch {
                throw CommandFailure("--upload: \(error.reason)")
            }
            signedPayload = .precomputedHash(hash.finalize().hexLowercased)
        }
        return try await options.send(request, clock: clock) { request, time throws(AuthCoreError) in
            var streamed = request
            streamed.body = .stream(payload)
            let signature = try signer.sign(
                streamed.sigV4Request(payload: signedPayload),
                at: time,
                keepingCanonicalRequest: verbose
            )
            if verbose {
                printError(
                    "--- canonical request\n\(RequestOptions.redactedCanonicalRequest(signature.canonicalRequest ?? ""))\n--- string to sign\n\(signature.stringToSign)"
                )
            }
            return streamed.adding(signature)
        }
    }
}
