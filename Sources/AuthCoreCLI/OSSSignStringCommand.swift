import AuthCore
import AuthCoreClients
import Foundation

/// `authcore oss sign-string --policy FILE`: the app server's half of self-signed mode, for a shell
/// script or a small server to call per request. The request comes on stdin (it names the caller's
/// object, not a secret), the key from the environment, and nothing is signed outside the policy.
enum OSSSignStringCommand {
    /// The policy file: an ``OSSSigningPolicy`` in JSON.
    struct PolicyFile: Decodable {
        let buckets: [String]
        let keyPrefixes: [String]
        let methods: [String]?
        let regions: [String]?
        let maximumURLLifetime: Int?
        let maximumClockSkew: Int?
        let subresources: [String]?
        let ossHeaders: [String]?
    }

    static func run(_ arguments: ArraySlice<String>, help: String) throws -> Int32 {
        let parsed = try parseArguments(arguments, specs: [OptionSpec(names: ["--policy"], kind: .value)], help: help)
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(parsed.positionals[0])'") }
        let policyPath = try parsed.required("--policy")
        let file: PolicyFile
        do { file = try JSONDecoder().decode(PolicyFile.self, from: Data(try readFile(policyPath, limit: 65_536, option: "--policy"))) } catch let usage as UsageError {
            throw usage
        } catch {
            throw UsageError("--policy \(policyPath): not a policy (buckets, keyPrefixes, optional methods, regions, maximumURLLifetime, maximumClockSkew, subresources, ossHeaders)")
        }
        let defaults = OSSSigningPolicy(buckets: [], keyPrefixes: [])
        let policy = OSSSigningPolicy(
            buckets: Set(file.buckets), keyPrefixes: file.keyPrefixes, methods: file.methods.map(Set.init) ?? defaults.methods,
            regions: Set(file.regions ?? []), maximumURLLifetime: file.maximumURLLifetime ?? defaults.maximumURLLifetime,
            maximumClockSkew: file.maximumClockSkew ?? defaults.maximumClockSkew, subresources: file.subresources.map(Set.init) ?? defaults.subresources,
            ossHeaders: file.ossHeaders.map(Set.init) ?? defaults.ossHeaders)
        guard (1...604_800).contains(policy.maximumURLLifetime), (0...3600).contains(policy.maximumClockSkew) else {
            throw UsageError("--policy: maximumURLLifetime is 1...604800 and maximumClockSkew 0...3600")
        }
        let credentials = try credentialsFromEnvironment(id: "OSS_ACCESS_KEY_ID", secret: "OSS_ACCESS_KEY_SECRET", token: "OSS_SECURITY_TOKEN")
        let request: OSSSignatureRequest
        do { request = try JSONDecoder().decode(OSSSignatureRequest.self, from: Data(try readFile("-", limit: 131_072, option: "stdin"))) } catch let usage as UsageError {
            throw usage
        } catch {
            throw CommandFailure("the signing request on stdin is not {\"version\":…,\"stringToSign\":…} JSON")
        }
        do {
            let authority = try OSSSigningAuthority(credentials: credentials, policy: policy)
            let signed = try authority.sign(request, at: SystemClock().now())
            printOut(try jsonText(.object(["accessKeyId": .string(signed.accessKeyId), "signature": .string(signed.signature)])))
            return 0
        } catch let error as AuthCoreError {
            throw CommandFailure("\(error.code): \(error.reason)")
        }
    }
}
