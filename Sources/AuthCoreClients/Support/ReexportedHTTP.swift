/// The HTTP vocabulary (`HTTPRequest`, `HTTPResponse`, `HTTPTransport`, `NetworkPolicy`, the JSON
/// readers) lives in `AuthCoreHTTP`, which the server uses too; an app that imports
/// `AuthCoreClients` gets it with the clients, as `NIO` brings `NIOCore`.
@_exported public import AuthCoreHTTP
