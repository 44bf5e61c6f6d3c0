#if canImport(Glibc)
import Glibc
#endif

// `courier` is linked fully static (`-static-executable` in Package.swift): no dynamic loader,
// no shared libraries to map and relocate, so `courier open` starts in a fraction of a millisecond
// instead of ~1.5 ms (docs/broker.md, "`courier open` start-up"). Two kinds of symbol need an
// answer for that:
//
// - libdbus.a refers to libsystemd for its *server* side (`systemd:` listen addresses); a client
//   never calls it. These answer as libsystemd does in a process systemd did not socket-activate.
// - A few C library calls that a static glibc can only make by loading shared NSS modules (user
//   and group look-ups, host names) and `dlopen`: the linker sends them here (`--wrap`), and they
//   fail. libdbus needs none of them to reach a `unix:` session bus with EXTERNAL authentication
//   (it sends the uid as a number); for anything else (a `tcp:` bus address, cookie
//   authentication) the connection fails and the front hands the command to `courier-tool`, which
//   is linked normally. The Swift runtime's `dlopen` is its optional prespecializations library.

/// `sd_listen_fds(3)`: no file descriptors were passed.
@_cdecl("sd_listen_fds")
func sd_listen_fds(_ unsetEnvironment: Int32) -> Int32 { 0 }

/// `sd_is_socket(3)`: only called after `sd_listen_fds` found some; answers "no".
@_cdecl("sd_is_socket")
func sd_is_socket(_ fd: Int32, _ family: Int32, _ type: Int32, _ listening: Int32) -> Int32 { 0 }

/// `getpwuid_r(3)`: no such user (result NULL, ENOENT).
@_cdecl("__wrap_getpwuid_r")
func wrappedGetpwuidR(_ uid: UInt32, _ entry: UnsafeMutableRawPointer?, _ buffer: UnsafeMutableRawPointer?, _ size: Int, _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    result?.pointee = nil
    return ENOENT
}

/// `getpwnam_r(3)`: no such user.
@_cdecl("__wrap_getpwnam_r")
func wrappedGetpwnamR(_ name: UnsafePointer<CChar>?, _ entry: UnsafeMutableRawPointer?, _ buffer: UnsafeMutableRawPointer?, _ size: Int, _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    result?.pointee = nil
    return ENOENT
}

/// `getgrouplist(3)`: failure.
@_cdecl("__wrap_getgrouplist")
func wrappedGetgrouplist(_ user: UnsafePointer<CChar>?, _ group: UInt32, _ groups: UnsafeMutablePointer<UInt32>?, _ count: UnsafeMutablePointer<Int32>?) -> Int32 { -1 }

/// `getaddrinfo(3)`: a permanent failure (EAI_FAIL).
@_cdecl("__wrap_getaddrinfo")
func wrappedGetaddrinfo(_ node: UnsafePointer<CChar>?, _ service: UnsafePointer<CChar>?, _ hints: UnsafeRawPointer?, _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    result?.pointee = nil
    return EAI_FAIL
}

/// `dlopen(3)`: nothing can be loaded.
@_cdecl("__wrap_dlopen")
func wrappedDlopen(_ path: UnsafePointer<CChar>?, _ mode: Int32) -> UnsafeMutableRawPointer? { nil }
