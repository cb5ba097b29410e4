#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's text for an `errno` value (`strerror`), or `error N` when it has none: the one
/// wording of system-call failures in the transport's and the files' errors.
package func systemErrorText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}
