#if canImport(Glibc)
import Glibc
#endif

// What an executable linked fully static (`-static-executable`) with libdbus needs besides the
// archives: the `courier` front, the todolist example, courier-bench's start-up app, and any app
// that starts like a native tool (docs/PERFORMANCE.md, "Cold open"). No dynamic loader, no shared
// libraries to map and relocate: `courier open` starts in a fraction of a millisecond instead of
// ~1.5 ms (docs/broker.md, "`courier open` start-up"). Two kinds of symbol need an answer:
//
// - libdbus.a refers to libsystemd for its *server* side (`systemd:` listen addresses); a client
//   never calls it, and there is no libsystemd.a. These answer as libsystemd does in a process
//   systemd did not socket-activate.
// - A few C library calls that a static glibc can only make by loading shared NSS modules (user
//   and group look-ups, host names) and `dlopen`: the linker sends them here (`--wrap`, the list in
//   Package.swift's `StaticExecutable.wrappedSymbols`), and they fail. libdbus needs none of them
//   to reach a `unix:` session bus with EXTERNAL authentication (it sends the uid as a number); for
//   anything else (a `tcp:` bus address, cookie authentication) the connection fails — the front
//   then hands the command to `courier-tool`, which is linked normally; an app says it cannot
//   connect. The Swift runtime's `dlopen` is its optional prespecializations library; the user
//   database serves only a missing `$HOME` (`CourierLayout`), which then falls back to `/`.
//
// - The C runtime of a static executable (crtbeginT.o) registers the executable's unwind tables
//   with the unwinder, which then sorts all of them (hundreds of thousands of entries in an app
//   with Foundation) the first time anything unwinds — and the main thread of an `async` main
//   ends with `pthread_exit`, a forced unwind, at every launch. The registration and its undoing at
//   exit are `--wrap`ped to no-ops and the linker writes the tables' index (`--eh-frame-hdr`): the
//   unwinder finds the executable through `dl_iterate_phdr` and binary-searches the index, as it
//   does in a dynamic executable. C++ exceptions (libdispatch, ICU) unwind the same way.
//
// A library of its own (product `CourierStaticExecutable`), linked only by executables built that
// way: in a dynamically linked program these definitions would shadow libsystemd's.

/// `sd_listen_fds(3)`: no file descriptors were passed.
@_cdecl("sd_listen_fds")
public func sd_listen_fds(_ unsetEnvironment: Int32) -> Int32 { 0 }

/// `sd_is_socket(3)`: only called after `sd_listen_fds` found some; answers "no".
@_cdecl("sd_is_socket")
public func sd_is_socket(_ fd: Int32, _ family: Int32, _ type: Int32, _ listening: Int32) -> Int32 { 0 }

/// `getpwuid_r(3)`: no such user (result NULL, ENOENT).
@_cdecl("__wrap_getpwuid_r")
public func wrappedGetpwuidR(_ uid: UInt32, _ entry: UnsafeMutableRawPointer?, _ buffer: UnsafeMutableRawPointer?, _ size: Int, _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    result?.pointee = nil
    return ENOENT
}

/// `getpwnam_r(3)`: no such user.
@_cdecl("__wrap_getpwnam_r")
public func wrappedGetpwnamR(_ name: UnsafePointer<CChar>?, _ entry: UnsafeMutableRawPointer?, _ buffer: UnsafeMutableRawPointer?, _ size: Int, _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    result?.pointee = nil
    return ENOENT
}

/// `getgrouplist(3)`: failure.
@_cdecl("__wrap_getgrouplist")
public func wrappedGetgrouplist(_ user: UnsafePointer<CChar>?, _ group: UInt32, _ groups: UnsafeMutablePointer<UInt32>?, _ count: UnsafeMutablePointer<Int32>?) -> Int32 { -1 }

/// `getaddrinfo(3)`: a permanent failure (EAI_FAIL).
@_cdecl("__wrap_getaddrinfo")
public func wrappedGetaddrinfo(_ node: UnsafePointer<CChar>?, _ service: UnsafePointer<CChar>?, _ hints: UnsafeRawPointer?, _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    result?.pointee = nil
    return EAI_FAIL
}

/// `dlopen(3)`: nothing can be loaded.
@_cdecl("__wrap_dlopen")
public func wrappedDlopen(_ path: UnsafePointer<CChar>?, _ mode: Int32) -> UnsafeMutableRawPointer? { nil }

/// `__register_frame_info` (libgcc, called by crtbeginT.o): nothing to register — the unwinder
/// finds the executable's tables through their index (see the top of this file).
@_cdecl("__wrap___register_frame_info")
public func wrappedRegisterFrameInfo(_ begin: UnsafeRawPointer?, _ object: UnsafeMutableRawPointer?) {}

/// `__deregister_frame_info` (crtbeginT.o, at exit): nothing was registered.
@_cdecl("__wrap___deregister_frame_info")
public func wrappedDeregisterFrameInfo(_ begin: UnsafeRawPointer?) -> UnsafeMutableRawPointer? { nil }
