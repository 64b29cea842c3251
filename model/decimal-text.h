/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_DECIMAL_TEXT_H
#define AIT_DECIMAL_TEXT_H

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief The strict number grammar of the module's input files (FileTopologyHelper) and of
 *        ai-training-sim's flags: digits, an optional fraction (".digits") and an optional
 *        exponent ("e" or "E", an optional sign, digits); no sign, space or anything else.
 * \param s the text
 * \return true if s is such a number ("1", "0.5", "2.5e-3"; not "", ".5", "1.", "-1", "1e")
 */
inline bool
IsDecimal(const std::string& s)
{
    size_t i = 0;
    auto digits = [&]() {
        const size_t b = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
        {
            ++i;
        }
        return i > b;
    };
    if (!digits())
    {
        return false;
    }
    if (i < s.size() && s[i] == '.' && !(++i, digits()))
    {
        return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E'))
    {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
        {
            ++i;
        }
        if (!digits())
        {
            return false;
        }
    }
    return i == s.size();
}

/**
 * \ingroup ai-training
 * \brief Read a number of IsDecimal's grammar.
 * \param s the text
 * \param[out] out its value (set only on success)
 * \return true if IsDecimal(s) and its value is finite
 */
inline bool
ParseDecimal(const std::string& s, double* out)
{
    if (!IsDecimal(s))
    {
        return false;
    }
    const double v = std::strtod(s.c_str(), nullptr);
    if (!std::isfinite(v))
    {
        return false;
    }
    *out = v;
    return true;
}

/**
 * \ingroup ai-training
 * \brief The number reader of the flow-size CDF files (FlowSizeCdf) and of the flow files
 *        (FlowHelper): a text that starts with a digit or '.' and that strtod reads to its end,
 *        to a finite value without a range error. Wider than IsDecimal: ".5", "5.", "1.e3"
 *        and hexadecimal numbers ("0x10") pass too, as these files have always read them.
 * \param s the text
 * \param[out] out its value (set only on success)
 * \return true if s is such a number
 */
inline bool
ParseFileNumber(const std::string& s, double* out)
{
    if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.'))
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v))
    {
        return false;
    }
    *out = v;
    return true;
}

/**
 * \brief Remove a UTF-8 byte order mark (EF BB BF, which some editors write) from the start of
 *        a file's first line: it is no content.
 * \param line the first line (changed in place)
 */
inline void
StripByteOrderMark(std::string& line)
{
    if (line.compare(0, 3, "\xEF\xBB\xBF") == 0)
    {
        line.erase(0, 3);
    }
}

} // namespace ns3

#endif // AIT_DECIMAL_TEXT_H
