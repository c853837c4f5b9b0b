#pragma once
/// How numbers are shown to people: heatmap cells, legends, the Inspector, exported figures. One
/// function, so that the window and the exports agree and "-0.00" never appears.
#include <string>

namespace attnlab {

/// The precision a user can choose (decimals after the point) and the one shown by default.
constexpr int kMinDecimals = 1;
constexpr int kMaxDecimals = 6;
constexpr int kDefaultDecimals = 2;

/// `v` with exactly `decimals` (0 to 17) decimals, as printf's %.*f, except that a value that
/// rounds to zero prints without its sign ("0.00", never "-0.00"); infinities are "inf" and
/// "-inf", NaN "nan".
std::string format_fixed(double v, int decimals);

/// A number as every cell, explanation and Inspector line shows it to people: format_fixed's
/// digits with a real minus sign (U+2212, "−0.42"), minus infinity "−∞". Generated text writes
/// its numbers with this, at the user's decimals, so that "0.80" in a sentence reads as the cell.
std::string format_number(double v, int decimals);

/// A number in full where one is hovered or listed (a cell's tooltip, a gradient): `digits`
/// significant digits as printf's %.*g, with format_number's minus sign ("−0.239734", "1.45427",
/// "−∞"). With `sign`, a plus before a positive number and trailing zeros kept ("+5.620"), so that
/// a column of them lines up.
std::string format_significant(double v, int digits, bool sign = false);

/// As format_fixed, then trailing zeros and a bare point dropped: "0.25", "1", "-21.21". For
/// numbers inside sentences and formulas, where "1.00 x 0.50" would only add noise.
std::string format_trimmed(double v, int decimals);

}  // namespace attnlab
