#pragma once
// Units: SI inside the code (seconds, bytes, bytes/s, flop/s); JSON keys carry their unit in their name.
//
// This is the one place that says how each unit suffix converts to SI:
//   _s 1 s     _ms 1e-3 s   _us 1e-6 s    _ns 1e-9 s
//   _bytes 1 B _mib 2^20 B  _gib 2^30 B (GPU memory: a "40 GB" A100 holds 40 GiB, as nvidia-smi reports)
//   _gbps 1e9 bit/s (network line rates)  _gBps 1e9 B/s (memory and bus bandwidths, as datasheets give them)
//   _tflops 1e12 flop/s
// In C++ names the unit is a suffix too: latency_s, bandwidth_Bps, peak_flops, memory_bytes.

namespace vtsim::units {

inline constexpr double kSecondsPerMs = 1e-3;
inline constexpr double kSecondsPerUs = 1e-6;
inline constexpr double kSecondsPerNs = 1e-9;

inline constexpr double kBytesPerMiB = 1024.0 * 1024.0;
inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

inline constexpr double kBytesPerSecondPerGbps = 1e9 / 8.0;  ///< 1 Gbit/s in bytes/s
inline constexpr double kBytesPerSecondPerGBps = 1e9;        ///< 1 GB/s in bytes/s
inline constexpr double kFlopsPerTflops = 1e12;

/// Converts a network line rate in Gbit/s to bytes/s.
constexpr double gbps_to_Bps(double gbps) { return gbps * kBytesPerSecondPerGbps; }
/// Converts a datasheet bandwidth in GB/s (decimal) to bytes/s.
constexpr double gBps_to_Bps(double gBps) { return gBps * kBytesPerSecondPerGBps; }
/// Converts TFLOP/s to flop/s.
constexpr double tflops_to_flops(double tflops) { return tflops * kFlopsPerTflops; }

// Shorthands for tables of datasheet numbers, so that a catalog entry reads as its source writes it (`gBps(2039)`,
// `mib(512)`, `us(1.3)`): each returns the SI value.

/// A rate in TFLOP/s, in flop/s.
constexpr double tflops(double value) { return tflops_to_flops(value); }
/// A bandwidth in GB/s (decimal), in bytes/s.
constexpr double gBps(double value) { return gBps_to_Bps(value); }
/// A line rate in Gbit/s, in bytes/s.
constexpr double gbps(double value) { return gbps_to_Bps(value); }
/// A size in MiB, in bytes.
constexpr double mib(double value) { return value * kBytesPerMiB; }
/// A size in GiB, in bytes.
constexpr double gib(double value) { return value * kBytesPerGiB; }
/// A time in microseconds, in seconds.
constexpr double us(double value) { return value * kSecondsPerUs; }
/// A time in nanoseconds, in seconds.
constexpr double ns(double value) { return value * kSecondsPerNs; }

}  // namespace vtsim::units
