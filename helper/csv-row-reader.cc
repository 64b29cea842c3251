/* SPDX-License-Identifier: GPL-2.0-only */
#include "csv-row-reader.h"

#include <cstdlib>

namespace ns3
{

CsvRowReader::CsvRowReader()
    : m_firstRow(-1)
{
}

bool
CsvRowReader::Open(const std::string& path)
{
    m_in.close();
    m_in.clear();
    m_header.clear();
    m_fields.clear();
    m_firstRow = -1;
    m_in.open(path);
    if (!m_in || !std::getline(m_in, m_line))
    {
        m_in.close();
        return false;
    }
    Split();
    for (const std::string_view f : m_fields)
    {
        m_header.emplace_back(f);
    }
    m_fields.clear();
    // at the end already (a header without a newline): no rows, nothing to rewind to
    m_firstRow = m_in.eof() ? std::streampos(-1) : m_in.tellg();
    return true;
}

const std::vector<std::string>&
CsvRowReader::GetHeader() const
{
    return m_header;
}

int
CsvRowReader::Col(const std::string& name) const
{
    for (std::size_t i = 0; i < m_header.size(); ++i)
    {
        if (m_header[i] == name)
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

bool
CsvRowReader::Next()
{
    m_fields.clear();
    while (m_in.is_open() && std::getline(m_in, m_line))
    {
        if (!m_line.empty())
        {
            Split();
            return true;
        }
    }
    return false;
}

bool
CsvRowReader::Rewind()
{
    m_fields.clear();
    if (!m_in.is_open())
    {
        return false;
    }
    m_in.clear();
    if (m_firstRow == std::streampos(-1))
    {
        m_in.setstate(std::ios::eofbit);
        return true;
    }
    return static_cast<bool>(m_in.seekg(m_firstRow));
}

std::size_t
CsvRowReader::GetFieldCount() const
{
    return m_fields.size();
}

std::string_view
CsvRowReader::Text(int col) const
{
    return col >= 0 && col < static_cast<int>(m_fields.size()) ? m_fields[col] : std::string_view();
}

double
CsvRowReader::Num(int col) const
{
    const std::string_view f = Text(col);
    // each field ends in a NUL (a comma replaced, or the end of the line)
    return f.empty() ? 0.0 : std::strtod(f.data(), nullptr);
}

void
CsvRowReader::Split()
{
    m_fields.clear();
    char* const line = m_line.data();
    const std::size_t n = m_line.size();
    std::size_t a = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        if (line[i] == ',')
        {
            line[i] = '\0';
            m_fields.emplace_back(line + a, i - a);
            a = i + 1;
        }
    }
    m_fields.emplace_back(line + a, n - a);
}

} // namespace ns3
