package import AuthCore

/// Splits a command line into words as Python's `shlex.split` does (POSIX mode, no comments): how
/// botocore turns a profile's `credential_process` into the program and its arguments, with no shell
/// in between.
///
/// - Blanks (space, tab, CR, LF) separate words.
/// - `'…'` keeps everything inside literally.
/// - `"…"` keeps everything inside, except that a backslash before `"` or `\` stands for that byte.
/// - Outside quotes, a backslash makes the next byte literal.
/// - Quotes join with what touches them (`a"b c"d` is one word); `""` alone is an empty word.
package enum ShellWords {
    /// The words of `text`.
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` for an unclosed quote or a trailing backslash.
    package static func split(_ text: String, context: String) throws(AuthCoreError) -> [String] {
        var words: [String] = []
        var word: [UInt8] = []
        var inWord = false
        var bytes = Array(text.utf8)[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                if inWord { words.append(String(decoding: word, as: UTF8.self)) }
                word.removeAll()
                inWord = false
            case UInt8(ascii: "'"):
                inWord = true
                guard let close = bytes.firstIndex(of: UInt8(ascii: "'")) else {
                    throw AuthCoreError(.malformedInput, "\(context): no closing quotation")
                }
                word += bytes[..<close]
                bytes = bytes[(close + 1)...]
            case UInt8(ascii: "\""):
                inWord = true
                var closed = false
                while let inner = bytes.popFirst() {
                    if inner == UInt8(ascii: "\"") {
                        closed = true
                        break
                    }
                    if inner == UInt8(ascii: "\\"), let next = bytes.first,
                        next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\")
                    {
                        word.append(next)
                        bytes = bytes.dropFirst()
                    } else {
                        word.append(inner)
                    }
                }
                guard closed else { throw AuthCoreError(.malformedInput, "\(context): no closing quotation") }
            case UInt8(ascii: "\\"):
                inWord = true
                guard let next = bytes.popFirst() else {
                    throw AuthCoreError(.malformedInput, "\(context): no escaped character")
                }
                word.append(next)
            default:
                inWord = true
                word.append(byte)
            }
        }
        if inWord { words.append(String(decoding: word, as: UTF8.self)) }
        return words
    }
}
