/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef AIT_DECIMAL_TEXT_H
#define AIT_DECIMAL_TEXT_H

#include <cctype>
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

} // namespace ns3

#endif // AIT_DECIMAL_TEXT_H
