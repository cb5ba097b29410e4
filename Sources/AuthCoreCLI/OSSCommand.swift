import AuthCore
import AuthCoreClients
import Foundation

enum OSSCommand {
    static let help = """
        OVERVIEW: Sign, presign or send a request to Alibaba Cloud OSS (signature V1 or V4).

        USAGE: authcore oss sign|presign|send --bucket B [--version v1|v4] [--region R] [-X METHOD]
               [-H 'Name: value']... [-d TEXT | -d @FILE | --data-raw TEXT | --data-file FILE|-] [--additional-header NAME]...
               [--timestamp T] [--expires SECONDS] [--verbose] [--clock-offset SECONDS]
               [--no-skew-correction] [--output FILE] [--profile NAME]
               [--signer-url URL [--signer-header 'Name: value']...] URL
               authcore oss sign-string --policy FILE

        Credentials come from OSS_ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET and OSS_SECURITY_TOKEN, or with
        --profile NAME from that Alibaba Cloud profile (~/.aliyun/config.json or the INI credentials
        file), never from arguments. The object key is the URL's path (after the bucket name in
        path-style URLs).

        Self-signed mode (--signer-url): no secret at all; each string to sign is posted to the app
        server's URL as JSON {"version":"v1","stringToSign":…} or {"version":"v4","stringToSign":…,
        "date":"YYYYMMDD","region":…,"canonicalRequest":…}, which answers 200 {"accessKeyId":…,"signature":…}.
        AUTHCORE_SIGNER_TOKEN (environment) sends Authorization: Bearer <token>, the app session of an
        'authcore serve' server ('authcore srp login' prints it); AUTHCORE_SIGNER_HEADERS adds fields
        given as 'Name: value' lines (an app's own session header); --signer-header adds fields that
        are not credentials (repeatable; Authorization, cookies and tokens are refused in argv). A V4 presigned URL names the key id in
        what is signed: it comes from OSS_ACCESS_KEY_ID (an id, not a secret).

        sign-string is the server half: it reads one such JSON request on stdin, checks it against the
        policy FILE ({"buckets":[…],"keyPrefixes":[…],"methods":[…],"regions":[…],"maximumURLLifetime":N,
        "subresources":[…],"ossHeaders":[…]}; the last four optional) and prints {"accessKeyId":…,
        "signature":…}, signing with OSS_ACCESS_KEY_ID / OSS_ACCESS_KEY_SECRET; a request outside the
        policy exits 1 and names the rule.

        ACTIONS:
          sign      Print the headers to add (Date or x-oss-date/x-oss-content-sha256, the security
                    token if any, Authorization last).
          presign   Print a signed URL valid for --expires seconds (default 3600).
          send      Sign and send; exit 0 only for a 2xx status.

        OPTIONS:
          --bucket B                The bucket.
          --version v1|v4           Signature version (default v4).
          --region R                Region for V4 (e.g. cn-hangzhou); required with v4.
          --additional-header NAME  V4: another header to sign (repeatable).
          --timestamp T             Sign at T: an RFC 1123 date for V1 (Sat, 14 Mar 2026 15:09:26 GMT),
                                    YYYYMMDDTHHMMSSZ for V4.
          -X, -H, -d (@FILE reads a file), --data-raw, --data-file (- is stdin), --expires, --verbose, --clock-offset, --no-skew-correction,
          --output FILE             As for 'authcore sigv4'.
          -h, --help                Show this help.
        """

    static func run(_ arguments: ArraySlice<String>) async throws -> Int32 {
        if arguments.first == "sign-string" { return try OSSSignStringCommand.run(arguments.dropFirst(), help: help) }
        let options = try RequestOptions(
            arguments,
            service: .other,
            extraSpecs: [
                OptionSpec(names: ["--bucket"], kind: .value), OptionSpec(names: ["--version"], kind: .value),
                OptionSpec(names: ["--additional-header"], kind: .repeatedValue),
                OptionSpec(names: ["--signer-url"], kind: .value),
                OptionSpec(names: ["--signer-header"], kind: .repeatedValue),
                OptionSpec(names: ["--profile"], kind: .value),
            ],
            help: help
        )
        let bucket = try options.parsed.required("--bucket")
        guard let version = OSSSigner.Version(rawValue: options.parsed.value("--version") ?? "v4") else {
            throw UsageError("--version must be v1 or v4")
        }
        let region = options.parsed.value("--region")
        if version == .v4 && region == nil { throw UsageError("--region is required for OSS V4") }
        let signing = try await signingMode(options, version: version, region: region)
        let clock = try options.clock { text throws(AuthCoreError) in
            version == .v1 ? try Timestamp(rfc1123: text) : try Timestamp(amzDate: text)
        }
        let key = objectKey(url: options.url, bucket: bucket)
        let additional = options.parsed.all("--additional-header")
        let request = HTTPRequest(
            method: options.method,
            url: options.url,
            headers: options.headers,
            body: options.body
        )
        let verbose = options.verbose

        @Sendable func ossRequest(_ request: HTTPRequest) -> OSSRequest {
            request.ossRequest(bucket: bucket, key: key, additionalHeaders: additional)
        }
        @Sendable func report(_ signature: OSSSignature) {
            guard verbose else { return }
            if let canonical = signature.canonicalRequest {
                printError("--- canonical request\n\(RequestOptions.redactedCanonicalRequest(canonical))")
            }
            printError("--- string to sign\n\(signature.stringToSign)")
        }

        let expires = options.expires
        return try await options.perform(
            request,
            clock: clock,
            report: report,
            sign: { request, time throws(AuthCoreError) in
                switch signing {
                case .local(let signer):
                    try signer.sign(ossRequest(request), at: time, keepingCanonicalRequest: verbose)
                case .remote(let signer, let provider):
                    try await signer.sign(ossRequest(request), at: time, provider: provider)
                }
            },
            presign: { request, time throws(AuthCoreError) in
                switch signing {
                case .local(let signer):
                    try signer.presign(
                        ossRequest(request),
                        at: time,
                        expires: expires,
                        keepingCanonicalRequest: verbose
                    )
                case .remote(let signer, let provider):
                    try await signer.presign(ossRequest(request), at: time, expires: expires, provider: provider)
                }
            }
        )
    }

    /// Who signs: a local key from the environment, or (self-signed mode) the app server at --signer-url.
    enum Signing: Sendable {
        case local(OSSSigner)
        case remote(OSSDetachedSigner, URLSignatureProvider)
    }

    static func signingMode(
        _ options: RequestOptions,
        version: OSSSigner.Version,
        region: String?
    ) async throws -> Signing {
        if options.parsed.value("--profile") != nil, options.parsed.value("--signer-url") != nil {
            throw UsageError("--profile and --signer-url exclude each other (the signer URL signs without local keys)")
        }
        guard let signerURL = options.parsed.value("--signer-url") else {
            guard options.parsed.all("--signer-header").isEmpty else {
                throw UsageError("--signer-header needs --signer-url")
            }
            let credentials =
                if let profile = options.parsed.value("--profile") {
                    try await AlibabaProfileCredentials.resolve(profile: profile).credentials
                } else {
                    try credentialsFromEnvironment(
                        id: "OSS_ACCESS_KEY_ID",
                        secret: "OSS_ACCESS_KEY_SECRET",
                        token: "OSS_SECURITY_TOKEN"
                    )
                }
            do { return .local(try OSSSigner(credentials: credentials, version: version, region: region)) } catch {
                throw UsageError(error.reason)
            }
        }
        var headers = try options.parsed.all("--signer-header").map { raw in
            let header = try RequestOptions.header(raw)
            guard !header.holdsCredential else {
                throw UsageError(
                    "--signer-header \(header.name): a credential header cannot be given in argv (AUTHCORE_SIGNER_TOKEN or AUTHCORE_SIGNER_HEADERS)"
                )
            }
            return header
        }
        // The app's credentials for its own server come from the environment, never argv: a bearer
        // token, and any other fields ('Name: value' lines, for a server that wants its own).
        if let lines = takeSecretEnvironment("AUTHCORE_SIGNER_HEADERS") {
            let text = lines.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            for line in text.pieces(separatedBy: UInt8(ascii: "\n"), omittingEmpty: true)
            where !line.trimmingASCIISpaces.isEmpty && line != "\r" {
                let field =
                    line.utf8.last == UInt8(ascii: "\r") ? String(decoding: line.utf8.dropLast(), as: UTF8.self) : line
                do { headers.append(try RequestOptions.header(field)) } catch {
                    throw UsageError("AUTHCORE_SIGNER_HEADERS: each line must be 'Name: value'")
                }
            }
        }
        if let token = takeSecretEnvironment("AUTHCORE_SIGNER_TOKEN") {
            headers.append(
                HTTPHeader("Authorization", "Bearer " + token.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
            )
        }
        do {
            let provider = try URLSignatureProvider(url: try RequestURL(signerURL), headers: headers)
            return .remote(
                try OSSDetachedSigner(version: version, region: region, accessKeyId: environment("OSS_ACCESS_KEY_ID")),
                provider
            )
        } catch {
            throw UsageError("--signer-url: \(error.reason)")
        }
    }

    /// The raw object key: the URL's decoded path, after `/bucket` in path-style URLs.
    static func objectKey(url: RequestURL, bucket: String) -> String {
        // On bytes: a bucket name is ASCII, and a key's first byte may start a grapheme cluster
        // with the `/` before it.
        var path = Array(url.path.utf8)[...]
        let prefix = Array("/\(bucket)".utf8)
        let virtualHosted = url.host.utf8.starts(with: Array("\(bucket).".utf8))
        if !virtualHosted, path.starts(with: prefix),
            path.count == prefix.count || path[path.startIndex + prefix.count] == UInt8(ascii: "/")
        {
            path = path.dropFirst(prefix.count)
        }
        if path.first == UInt8(ascii: "/") { path = path.dropFirst() }
        let text = String(decoding: path, as: UTF8.self)
        return PercentEncoding.decoded(text[...]) ?? text
    }
}
