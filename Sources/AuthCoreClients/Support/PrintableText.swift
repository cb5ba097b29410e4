/// Text from a server or a file made safe for an error message: printable ASCII scalars kept, any
/// other scalar `?`, at most `limit` scalars. The one sanitiser of outside text in errors (token
/// claims, OAuth errors, unknown names).
func printableText(_ text: String, limit: Int) -> String {
    String(
        String.UnicodeScalarView(
            text.unicodeScalars.prefix(max(0, limit)).map { (0x20...0x7E).contains($0.value) ? $0 : "?" }
        )
    )
}
