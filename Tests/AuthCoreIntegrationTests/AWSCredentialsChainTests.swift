import AuthCore
import AuthCoreClients
import AuthCoreTestSupport
import Foundation
import Testing

/// The AWS default chain against botocore, case by case: each case is a set of files and variables
/// (HOME is the case's own directory, so `~/.aws/…` is its files); botocore
/// (`scripts/aws_chain_oracle.py`: `Session(profile:).get_credentials()`, frozen) and
/// ``AWSCredentialsChain`` resolve it with the same environment against the same loopback peers
/// (ministack with `AUTH=true`: it verifies the SigV4 signature of `AssumeRole`, evaluates trust
/// policies and external ids, and serves IMDSv2 and ECS credentials). Each case states what must
/// come out; both must give it: the same access key id (and session token) for keys read from files,
/// the environment or a process; the same source; for STS sources, credentials whose
/// `GetCallerIdentity` (signed with them, checked by ministack) names the same role; or the same kind
/// of error (botocore's exception class ↔ AuthCore's code, ``errorCodes``).
@Suite("AWS default credentials chain: AuthCore against botocore, with ministack", .serialized)
struct AWSCredentialsChainTests {
    /// What a case must resolve to.
    enum Outcome {
        /// Keys with this id (and token) from this source.
        case keys(AWSCredentialSource, String, token: String? = nil)
        /// Temporary credentials from an STS source whose caller identity is this role (its name).
        case role(AWSCredentialSource, String)
        /// Temporary credentials from a metadata source (their keys differ per call).
        case temporary(AWSCredentialSource)
        /// botocore's exception class.
        case error(String)
    }

    struct Case {
        let name: String
        var config: String? = nil
        var credentials: String? = nil
        var environment: [String: String] = [:]
        var profile: String? = nil
        /// Extra files in the case directory (name → contents).
        var files: [String: String] = [:]
        /// Symbolic links in the case directory (link name → target, relative to the directory).
        var links: [String: String] = [:]
        let expect: Outcome
    }

    /// botocore's exception class → the AuthCore code for the same failure.
    static let errorCodes: [String: AuthCoreError.Code] = [
        "NoCredentials": .credentialsUnavailable, "PartialCredentialsError": .malformedInput,
        "ProfileNotFound": .invalidParameter,
        "ConfigParseError": .malformedInput, "InvalidConfigError": .malformedInput,
        "InfiniteLoopConfigError": .malformedInput,
        "CredentialRetrievalError": .credentialsUnavailable, "RuntimeError": .expired,
        "FileNotFoundError": .credentialsUnavailable,
        "ClientError": .serviceError, "ValueError": .invalidParameter,
        "MetadataRetrievalError": .credentialsUnavailable,
    ]

    let setup: [String: Any]
    let endpoint: String

    init() throws {
        setup = try MinistackPool.helper(["chain-setup"])
        endpoint = try #require(setup["endpoint"] as? String)
        guard endpoint.hasPrefix("http://127.0.0.1:") else {
            throw PeerError(description: "ministack is not on loopback: \(endpoint)")
        }
    }

    func text(_ key: String) throws -> String { try #require(setup[key] as? String) }

    func cases() throws -> [Case] {
        let key = try text("accessKeyId")
        let secret = try text("secretAccessKey")
        let assumeRole = try text("assumeRoleArn")
        let externalRole = try text("externalRoleArn")
        let webRole = try text("webRoleArn")
        func roleName(_ arn: String) -> String { String(arn.split(separator: "/").last ?? "") }
        let process =
            #"/bin/echo '{"Version": 1, "AccessKeyId": "AKIDPROCESS0000001", "SecretAccessKey": "process-secret"}'"#
        let processWithToken =
            #"/bin/echo '{"Version": 1, "AccessKeyId": "AKIDPROCESS0000002", "SecretAccessKey": "s", "SessionToken": "process-token", "Expiration": "2099-01-01T00:00:00Z"}'"#
        let userKeys = "aws_access_key_id = \(key)\naws_secret_access_key = \(secret)\n"
        return [
            // The environment.
            Case(
                name: "environment keys",
                environment: ["AWS_ACCESS_KEY_ID": "AKIDENV00000000001", "AWS_SECRET_ACCESS_KEY": "e"],
                expect: .keys(.environment, "AKIDENV00000000001")
            ),
            Case(
                name: "environment over the credentials file",
                credentials: "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = f\n",
                environment: ["AWS_ACCESS_KEY_ID": "AKIDENV00000000002", "AWS_SECRET_ACCESS_KEY": "e"],
                expect: .keys(.environment, "AKIDENV00000000002")
            ),
            Case(
                name: "AWS_PROFILE does not skip the environment",
                credentials: "[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = d\n",
                environment: [
                    "AWS_ACCESS_KEY_ID": "AKIDENV00000000003", "AWS_SECRET_ACCESS_KEY": "e", "AWS_PROFILE": "dev",
                ],
                expect: .keys(.environment, "AKIDENV00000000003")
            ),
            Case(
                name: "an explicit profile skips the environment",
                credentials: "[dev]\naws_access_key_id = AKIDDEV0000000004\naws_secret_access_key = d\n",
                environment: ["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "e"],
                profile: "dev",
                expect: .keys(.sharedCredentialsFile, "AKIDDEV0000000004")
            ),
            Case(
                name: "an access key without its secret",
                environment: ["AWS_ACCESS_KEY_ID": "AKIDENV"],
                expect: .error("PartialCredentialsError")
            ),
            Case(
                name: "AWS_SECURITY_TOKEN over AWS_SESSION_TOKEN",
                environment: [
                    "AWS_ACCESS_KEY_ID": "AKIDENV00000000005", "AWS_SECRET_ACCESS_KEY": "e",
                    "AWS_SESSION_TOKEN": "session", "AWS_SECURITY_TOKEN": "security",
                ],
                expect: .keys(.environment, "AKIDENV00000000005", token: "security")
            ),
            // The files and their profiles.
            Case(
                name: "credentials file default",
                credentials:
                    "[default]\naws_access_key_id = AKIDCRED0000000001\naws_secret_access_key = c\naws_session_token = t1\n",
                expect: .keys(.sharedCredentialsFile, "AKIDCRED0000000001", token: "t1")
            ),
            Case(
                name: "config file default",
                config:
                    "[default]\nregion = eu-west-1\naws_access_key_id = AKIDCONF0000000001\naws_secret_access_key = c\n",
                expect: .keys(.configFile, "AKIDCONF0000000001")
            ),
            Case(
                name: "the credentials file before the config file",
                config: "[default]\naws_access_key_id = AKIDCONF\naws_secret_access_key = c\n",
                credentials: "[default]\naws_access_key_id = AKIDCRED0000000002\naws_secret_access_key = c\n",
                expect: .keys(.sharedCredentialsFile, "AKIDCRED0000000002")
            ),
            Case(
                name: "[profile dev] in the config file",
                config: "[profile dev]\naws_access_key_id = AKIDCONF0000000003\naws_secret_access_key = c\n",
                environment: ["AWS_PROFILE": "dev"],
                expect: .keys(.configFile, "AKIDCONF0000000003")
            ),
            Case(
                name: "[profile dev] in the credentials file is not profile dev",
                credentials: "[profile dev]\naws_access_key_id = AKIDX\naws_secret_access_key = c\n",
                environment: ["AWS_PROFILE": "dev"],
                expect: .error("ProfileNotFound")
            ),
            Case(
                name: "a named profile that does not exist",
                credentials: "[default]\naws_access_key_id = AKIDX\naws_secret_access_key = c\n",
                environment: ["AWS_PROFILE": "missing", "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "e"],
                expect: .error("ProfileNotFound")
            ),
            Case(
                name: "AWS_DEFAULT_PROFILE over AWS_PROFILE",
                credentials:
                    "[a]\naws_access_key_id = AKIDPROFILEA000001\naws_secret_access_key = a\n[b]\naws_access_key_id = AKIDPROFILEB\naws_secret_access_key = b\n",
                environment: ["AWS_DEFAULT_PROFILE": "a", "AWS_PROFILE": "b"],
                expect: .keys(.sharedCredentialsFile, "AKIDPROFILEA000001")
            ),
            Case(
                name: "[default] then [profile default]: the later wins",
                config:
                    "[default]\naws_access_key_id = AKIDFIRST\naws_secret_access_key = c\n[profile default]\naws_access_key_id = AKIDLATER000000001\naws_secret_access_key = c\n",
                expect: .keys(.configFile, "AKIDLATER000000001")
            ),
            Case(
                name: "[profile default] then [default]: the later wins",
                config:
                    "[profile default]\naws_access_key_id = AKIDFIRST\naws_secret_access_key = c\n[default]\naws_access_key_id = AKIDLATER000000002\naws_secret_access_key = c\n",
                expect: .keys(.configFile, "AKIDLATER000000002")
            ),
            Case(
                name: "a quoted profile name",
                config: "[profile \"team dev\"]\naws_access_key_id = AKIDQUOTED00000001\naws_secret_access_key = c\n",
                environment: ["AWS_PROFILE": "team dev"],
                expect: .keys(.configFile, "AKIDQUOTED00000001")
            ),
            Case(
                name: "[profilex foo] is profile foo (the prefix test only)",
                config: "[profilex foo]\naws_access_key_id = AKIDPREFIX00000001\naws_secret_access_key = c\n",
                environment: ["AWS_PROFILE": "foo"],
                expect: .keys(.configFile, "AKIDPREFIX00000001")
            ),
            Case(
                name: "a key without its secret in the credentials file",
                credentials: "[default]\naws_access_key_id = AKIDX\n",
                expect: .error("PartialCredentialsError")
            ),
            Case(
                name: "a key before any section",
                config: "aws_access_key_id = AKIDX\n[default]\n",
                expect: .error("ConfigParseError")
            ),
            Case(
                name: "a section twice",
                credentials: "[default]\naws_access_key_id = A\naws_secret_access_key = c\n[default]\nregion = x\n",
                expect: .error("ConfigParseError")
            ),
            Case(
                name: "a key twice",
                credentials: "[default]\naws_access_key_id = A\naws_access_key_id = B\naws_secret_access_key = c\n",
                expect: .error("ConfigParseError")
            ),
            Case(
                name: "a nested line without =",
                config: "[default]\ns3 =\n  max_concurrent_requests\n",
                expect: .error("ConfigParseError")
            ),
            Case(
                name: "a line that is not a key",
                config: "[default]\njust words\n",
                expect: .error("ConfigParseError")
            ),
            Case(
                name: "comments, CRLF, ':' and upper-case keys, a continued value, a nested block",
                credentials:
                    "# comment\r\n; another\r\n[default]\r\nAWS_ACCESS_KEY_ID: AKIDDIALECT0000001\r\naws_secret_access_key = c\r\nnote = first\r\n  second line\r\ns3 =\r\n  addressing_style = path\r\n",
                expect: .keys(.sharedCredentialsFile, "AKIDDIALECT0000001")
            ),
            Case(
                name: "[DEFAULT] keys apply to every section",
                credentials:
                    "[DEFAULT]\naws_secret_access_key = shared\n[dev]\naws_access_key_id = AKIDDEFAULTS000001\n",
                environment: ["AWS_PROFILE": "dev"],
                expect: .keys(.sharedCredentialsFile, "AKIDDEFAULTS000001")
            ),
            Case(
                name: "file paths from the environment, with $VAR and ~",
                environment: [
                    "AWS_SHARED_CREDENTIALS_FILE": "~/elsewhere/creds", "AWS_CONFIG_FILE": "$HOME/elsewhere/conf",
                ],
                files: [
                    "elsewhere/creds": "[default]\naws_access_key_id = AKIDMOVED000000001\naws_secret_access_key = c\n",
                    "elsewhere/conf": "[default]\nregion = us-west-2\n",
                ],
                expect: .keys(.sharedCredentialsFile, "AKIDMOVED000000001")
            ),
            Case(name: "nothing anywhere", expect: .error("NoCredentials")),
            Case(
                name: "AWS_PROFILE set to the empty string names a profile that does not exist",
                credentials: "[default]\naws_access_key_id = AKIDX\naws_secret_access_key = c\n",
                environment: ["AWS_PROFILE": ""],
                expect: .error("ProfileNotFound")
            ),
            Case(
                name: "symlinked shared files are read through their links",
                files: [
                    "dotfiles/credentials":
                        "[default]\naws_access_key_id = AKIDLINKED00000001\naws_secret_access_key = c\n"
                ],
                links: [".aws/credentials": "../dotfiles/credentials"],
                expect: .keys(.sharedCredentialsFile, "AKIDLINKED00000001")
            ),
            Case(
                name: "sso_session beside keys: the keys (botocore's SSO source needs sso_role_name or sso_account_id)",
                credentials:
                    "[default]\naws_access_key_id = AKIDSSOKEYS0000001\naws_secret_access_key = c\nsso_session = corp\n",
                expect: .keys(.sharedCredentialsFile, "AKIDSSOKEYS0000001")
            ),
            // credential_process.
            Case(
                name: "credential_process",
                config: "[default]\ncredential_process = \(process)\n",
                expect: .keys(.process, "AKIDPROCESS0000001")
            ),
            Case(
                name: "credential_process with a token and a future expiry",
                config: "[profile p]\ncredential_process = \(processWithToken)\n",
                environment: ["AWS_PROFILE": "p"],
                expect: .keys(.process, "AKIDPROCESS0000002", token: "process-token")
            ),
            Case(
                name: "credential_process in the credentials file",
                credentials: "[default]\ncredential_process = \(process)\n",
                expect: .keys(.process, "AKIDPROCESS0000001")
            ),
            Case(
                name: "credentials-file keys before credential_process",
                config: "[default]\ncredential_process = \(process)\n",
                credentials: "[default]\naws_access_key_id = AKIDCRED0000000003\naws_secret_access_key = c\n",
                expect: .keys(.sharedCredentialsFile, "AKIDCRED0000000003")
            ),
            Case(
                name: "credential_process before config-file keys",
                config:
                    "[default]\ncredential_process = \(process)\naws_access_key_id = AKIDCONF\naws_secret_access_key = c\n",
                expect: .keys(.process, "AKIDPROCESS0000001")
            ),
            Case(
                name: "credential_process exits non-zero",
                config: "[default]\ncredential_process = /bin/sh -c 'exit 3'\n",
                expect: .error("CredentialRetrievalError")
            ),
            Case(
                name: "credential_process with Version 2",
                config:
                    #"[default]\#ncredential_process = /bin/echo '{"Version": 2, "AccessKeyId": "A", "SecretAccessKey": "s"}'\#n"#,
                expect: .error("CredentialRetrievalError")
            ),
            Case(
                name: "credential_process without SecretAccessKey",
                config: #"[default]\#ncredential_process = /bin/echo '{"Version": 1, "AccessKeyId": "A"}'\#n"#,
                expect: .error("CredentialRetrievalError")
            ),
            Case(
                name: "credential_process output already expired",
                config:
                    #"[default]\#ncredential_process = /bin/echo '{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "s", "Expiration": "2020-01-01T00:00:00Z"}'\#n"#,
                expect: .error("RuntimeError")
            ),
            // AssumeRole (ministack verifies the signature made with the source credentials).
            Case(
                name: "role_arn with source_profile",
                config: "[profile user]\n\(userKeys)[profile admin]\nrole_arn = \(assumeRole)\nsource_profile = user\n",
                environment: ["AWS_PROFILE": "admin"],
                expect: .role(.assumeRole, roleName(assumeRole))
            ),
            Case(
                name: "a source profile whose credentials come from credential_process",
                config:
                    "[profile tool]\ncredential_process = /bin/echo '{\"Version\": 1, \"AccessKeyId\": \"\(key)\", \"SecretAccessKey\": \"\(secret)\"}'\n"
                    + "[profile admin]\nrole_arn = \(assumeRole)\nsource_profile = tool\nrole_session_name = from-process\nduration_seconds = 900\n",
                environment: ["AWS_PROFILE": "admin"],
                expect: .role(.assumeRole, roleName(assumeRole))
            ),
            Case(
                name: "role_arn naming itself as source_profile, with keys",
                config: "[profile self]\n\(userKeys)role_arn = \(assumeRole)\nsource_profile = self\n",
                environment: ["AWS_PROFILE": "self"],
                expect: .role(.assumeRole, roleName(assumeRole))
            ),
            Case(
                name: "environment keys come before a role profile named by AWS_PROFILE",
                config: "[profile admin]\nrole_arn = \(assumeRole)\ncredential_source = Environment\n",
                environment: ["AWS_PROFILE": "admin", "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret],
                expect: .keys(.environment, key)
            ),
            Case(
                name: "role_arn with credential_source Environment (an explicit profile)",
                config: "[profile admin]\nrole_arn = \(assumeRole)\ncredential_source = Environment\n",
                environment: ["AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret],
                profile: "admin",
                expect: .role(.assumeRole, roleName(assumeRole))
            ),
            Case(
                name: "an explicit role profile with environment keys present",
                config: "[profile user]\n\(userKeys)[profile admin]\nrole_arn = \(assumeRole)\nsource_profile = user\n",
                environment: ["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "e"],
                profile: "admin",
                expect: .role(.assumeRole, roleName(assumeRole))
            ),
            Case(
                name: "external_id the role's trust policy asks for",
                config:
                    "[profile user]\n\(userKeys)[profile ext]\nrole_arn = \(externalRole)\nsource_profile = user\nexternal_id = authcore-external-id\n",
                environment: ["AWS_PROFILE": "ext"],
                expect: .role(.assumeRole, roleName(externalRole))
            ),
            Case(
                name: "a wrong external_id is refused by STS",
                config:
                    "[profile user]\n\(userKeys)[profile ext]\nrole_arn = \(externalRole)\nsource_profile = user\nexternal_id = wrong\n",
                environment: ["AWS_PROFILE": "ext"],
                expect: .error("ClientError")
            ),
            Case(
                name: "a source profile with a wrong secret: STS refuses the signature",
                config:
                    "[profile user]\naws_access_key_id = \(key)\naws_secret_access_key = wrong-secret\n[profile admin]\nrole_arn = \(assumeRole)\nsource_profile = user\n",
                environment: ["AWS_PROFILE": "admin"],
                expect: .error("ClientError")
            ),
            Case(
                name: "both source_profile and credential_source",
                config:
                    "[profile admin]\nrole_arn = \(assumeRole)\nsource_profile = admin\ncredential_source = Environment\n",
                environment: ["AWS_PROFILE": "admin"],
                expect: .error("InvalidConfigError")
            ),
            Case(
                name: "role_arn without a source",
                config: "[profile admin]\nrole_arn = \(assumeRole)\n",
                environment: ["AWS_PROFILE": "admin"],
                expect: .error("PartialCredentialsError")
            ),
            Case(
                name: "a source_profile cycle",
                config:
                    "[profile a]\nrole_arn = \(assumeRole)\nsource_profile = b\n[profile b]\nrole_arn = \(assumeRole)\nsource_profile = a\n",
                environment: ["AWS_PROFILE": "a"],
                expect: .error("InfiniteLoopConfigError")
            ),
            Case(
                name: "a source_profile that does not exist",
                config: "[profile a]\nrole_arn = \(assumeRole)\nsource_profile = nowhere\n",
                environment: ["AWS_PROFILE": "a"],
                expect: .error("InvalidConfigError")
            ),
            Case(
                name: "an unknown credential_source",
                config: "[profile a]\nrole_arn = \(assumeRole)\ncredential_source = Somewhere\n",
                environment: ["AWS_PROFILE": "a"],
                expect: .error("InvalidConfigError")
            ),
            // Web identity.
            Case(
                name: "AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN",
                environment: [
                    "AWS_WEB_IDENTITY_TOKEN_FILE": "TOKEN_PATH", "AWS_ROLE_ARN": webRole,
                    "AWS_ROLE_SESSION_NAME": "pod-session",
                ],
                files: ["token": try text("webToken")],
                expect: .role(.webIdentity, roleName(webRole))
            ),
            Case(
                name: "web_identity_token_file in the profile",
                config: "[default]\nweb_identity_token_file = TOKEN_PATH\nrole_arn = \(webRole)\n",
                files: ["token": try text("webToken")],
                expect: .role(.webIdentity, roleName(webRole))
            ),
            Case(
                name: "a web identity token file without a role",
                environment: ["AWS_WEB_IDENTITY_TOKEN_FILE": "TOKEN_PATH"],
                files: ["token": try text("webToken")],
                expect: .error("InvalidConfigError")
            ),
            Case(
                name: "a web identity token file that does not exist",
                environment: ["AWS_WEB_IDENTITY_TOKEN_FILE": "TOKEN_PATH", "AWS_ROLE_ARN": webRole],
                expect: .error("FileNotFoundError")
            ),
            // Container and instance metadata (ministack serves both).
            Case(
                name: "ECS container credentials (full URI)",
                environment: ["AWS_CONTAINER_CREDENTIALS_FULL_URI": "\(endpoint)/v2/credentials/authcore-task"],
                expect: .temporary(.container)
            ),
            Case(
                name: "a container URI over http to a host not allowed",
                environment: ["AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://not-allowed.invalid/v2/credentials/x"],
                expect: .error("ValueError")
            ),
            Case(
                name: "IMDSv2 at AWS_EC2_METADATA_SERVICE_ENDPOINT",
                environment: ["AWS_EC2_METADATA_SERVICE_ENDPOINT": endpoint, "AWS_EC2_METADATA_DISABLED": "false"],
                expect: .temporary(.instanceMetadata)
            ),
            Case(
                name: "IMDS unreachable with IMDSv1 disabled",
                environment: [
                    "AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:\(try RedisServerProcess.freePort())",
                    "AWS_EC2_METADATA_DISABLED": "false",
                    "AWS_EC2_METADATA_V1_DISABLED": "true",
                ],
                expect: .error("MetadataRetrievalError")
            ),
        ]
    }

    /// The case's directory as HOME, its files written; the environment both resolvers see.
    func prepare(_ testCase: Case, in root: URL) throws -> [String: String] {
        let home = root.appendingPathComponent(
            testCase.name.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(String.init).joined()
        )
        let aws = home.appendingPathComponent(".aws")
        try FileManager.default.createDirectory(at: aws, withIntermediateDirectories: true)
        if let config = testCase.config {
            try Data(
                config.replacingOccurrences(of: "TOKEN_PATH", with: home.appendingPathComponent("token").path).utf8
            ).write(to: aws.appendingPathComponent("config"))
        }
        if let credentials = testCase.credentials {
            try Data(credentials.utf8).write(to: aws.appendingPathComponent("credentials"))
        }
        for (name, contents) in testCase.files {
            let url = home.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(contents.utf8).write(to: url)
        }
        for (name, target) in testCase.links {
            try FileManager.default.createSymbolicLink(
                atPath: home.appendingPathComponent(name).path,
                withDestinationPath: target
            )
        }
        // STS at ministack in us-east-1 (botocore's session reads AWS_DEFAULT_REGION, not AWS_REGION); the
        // instance metadata service off unless a case points it at a loopback endpoint.
        var environment = [
            "HOME": home.path, "PATH": "/usr/bin:/bin", "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_ENDPOINT_URL_STS": endpoint,
            "AWS_DEFAULT_REGION": "us-east-1",
        ]
        for (name, value) in testCase.environment {
            environment[name] = value.replacingOccurrences(
                of: "TOKEN_PATH",
                with: home.appendingPathComponent("token").path
            )
        }
        return environment
    }

    /// AuthCore's answer in the oracle's shape.
    func resolveWithAuthCore(_ environment: [String: String], profile: String?) async -> [String: String] {
        do {
            let chain = try AWSCredentialsChain(
                profile: profile,
                environment: ConfigurationEnvironment(environment),
                processTimeLimit: .seconds(20)
            )
            let resolved = try await chain.resolve()
            var answer = ["accessKeyId": resolved.credentials.accessKeyId, "method": resolved.source.rawValue]
            if let token = resolved.credentials.sessionToken { answer["sessionToken"] = token }
            if [.assumeRole, .webIdentity].contains(resolved.source) {
                answer["arn"] = try await callerIdentity(resolved.credentials)
            }
            return answer
        } catch let error as AuthCoreError {
            return ["code": "\(error.code)", "message": error.reason]
        } catch {
            return ["code": "unexpected \(type(of: error))"]
        }
    }

    /// STS GetCallerIdentity signed with `credentials` (ministack checks the signature and the token).
    func callerIdentity(_ credentials: Credentials) async throws -> String {
        let body = Array("Action=GetCallerIdentity&Version=2011-06-15".utf8)
        let signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "sts")
        let request = HTTPRequest(
            method: "POST",
            url: try RequestURL(endpoint + "/"),
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
            body: body
        )
        let response = try await HTTP1Transport().send(
            request.adding(try signer.sign(request.sigV4Request(payload: .bytes(body)), at: Timestamp(Date())))
        )
        let text = String(decoding: response.body.plainBytes, as: UTF8.self)
        guard response.status == 200, let start = text.range(of: "<Arn>"), let end = text.range(of: "</Arn>") else {
            throw PeerError(description: "GetCallerIdentity answered \(response.status): \(text.prefix(200))")
        }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// Whether an answer (botocore's or AuthCore's, in the oracle's shape) is the expected outcome.
    func matches(_ answer: [String: String], _ expect: Outcome, authCore: Bool) -> Bool {
        switch expect {
        case .keys(let source, let key, let token):
            return answer["method"] == source.rawValue && answer["accessKeyId"] == key
                && answer["sessionToken"] == token
        case .role(let source, let role):
            return answer["method"] == source.rawValue && answer["accessKeyId"]?.hasPrefix("ASIA") == true
                && answer["arn"]?.contains(":assumed-role/\(role)/") == true
        case .temporary(let source):
            return answer["method"] == source.rawValue && (answer["accessKeyId"]?.count ?? 0) >= 16
                && answer["sessionToken"] != nil
        case .error(let name):
            if !authCore { return answer["error"] == name }
            guard let code = Self.errorCodes[name] else { return false }
            return answer["code"] == "\(code)"
        }
    }

    @Test("at least 50 cases: botocore and AuthCore both give each case's stated outcome")
    func matrix() async throws {
        let oracle = try JSONLinePeer(script: "aws_chain_oracle.py")
        defer { oracle.close() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("authcore-chain-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let all = try cases()
        #expect(all.count >= 50)
        for testCase in all {
            let environment = try prepare(testCase, in: root)
            var request: [String: Any] = ["op": "resolve", "env": environment]
            if let profile = testCase.profile { request["profile"] = profile }
            if case .role = testCase.expect { request["callerIdentity"] = true }
            let botocore = try oracle.send(request).compactMapValues { $0 as? String }
            let authCore = await resolveWithAuthCore(environment, profile: testCase.profile)
            #expect(matches(botocore, testCase.expect, authCore: false), "\(testCase.name): botocore gave \(botocore)")
            #expect(matches(authCore, testCase.expect, authCore: true), "\(testCase.name): AuthCore gave \(authCore)")
        }
    }
}
