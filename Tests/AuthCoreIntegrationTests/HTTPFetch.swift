import AuthCoreTestSupport
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plain HTTP request with URLSession (to use presigned URLs like any other client would).
func fetch(_ url: String, method: String = "GET", body: String? = nil) async throws -> (status: Int, body: String) {
    guard let target = URL(string: url) else { throw PeerError(description: "bad URL \(url)") }
    var request = URLRequest(url: target)
    request.httpMethod = method
    if let body { request.httpBody = Data(body.utf8) }
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// The text of the first `<name>…</name>` element.
func xmlElement(_ name: String, in text: String) -> String? {
    guard let open = text.range(of: "<\(name)>"),
        let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
    else { return nil }
    return String(text[open.upperBound..<close.lowerBound])
}

/// Flips the last hex digit of the signature parameter of a presigned URL.
func tamperedSignature(_ url: String, parameter: String) -> String {
    guard let range = url.range(of: "\(parameter)=") else { return url }
    var characters = Array(url)
    // The first letter or digit from the 10th character of the value on that is not part of a %XX
    // escape (changing an escape could make the URL itself invalid, a 400, not a bad signature).
    var index = url.distance(from: url.startIndex, to: range.upperBound) + 10
    while index < characters.count,
        !(characters[index].isLetter || characters[index].isNumber) || characters[index - 1] == "%"
            || characters[index - 2] == "%"
    {
        index += 1
    }
    guard index < characters.count else { return url }
    characters[index] = characters[index] == "a" ? "b" : "a"
    return String(characters)
}
