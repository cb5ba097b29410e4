import AuthCore
import AuthCoreClients
import AuthCoreTestSupport

/// The seed object `scripts/with_peers.py` puts in rclone's bucket, and a signer for rclone's key:
/// what the transport tests fetch when they need a server that checks every signature.
struct RcloneSeedObject {
    let endpoint: String
    /// `/bucket/key`.
    let path: String
    let signer: SigV4Signer
    /// The object's content.
    static let content = Array("hello from rclone\n".utf8)

    init() throws {
        endpoint = try peerEnvironment("AUTHCORE_RCLONE_URL")
        path = "/\(try peerEnvironment("AUTHCORE_RCLONE_BUCKET"))/\(try peerEnvironment("AUTHCORE_RCLONE_SEED_KEY"))"
        let credentials = try Credentials(
            accessKeyId: try peerEnvironment("AUTHCORE_RCLONE_ACCESS_KEY_ID"),
            secretAccessKey: try peerEnvironment("AUTHCORE_RCLONE_SECRET_ACCESS_KEY")
        )
        signer = try SigV4Signer(credentials: credentials, region: "us-east-1", service: "s3", options: .s3)
    }

    /// A signed GET of `url` (the object, or the object through a relay) through `sender`.
    func get(_ url: RequestURL, through sender: SignedRequestSender) async throws -> HTTPResponse {
        try await sender.send(HTTPRequest(method: "GET", url: url)) { [signer] request, time throws(AuthCoreError) in
            request.adding(try signer.sign(request.sigV4Request(payload: .unsigned), at: time))
        }
    }
}
