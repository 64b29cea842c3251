/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CSV_ROW_READER_H
#define CSV_ROW_READER_H

#include <cstddef>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-training
 * \brief Reads a CSV file one line at a time: the header once, then each row's fields, without
 *        holding more than one line in memory.
 *
 * The format is the one the study's CSV files are written in: a header line of column names,
 * then one row per line, fields split at every comma (no quoting). In detail:
 *
 *  - the first line is the header, even when it is empty (one column named "")
 *  - an empty line after it is skipped; every other line is a row, however many fields it has
 *    (Text and Num of a column the row does not reach are "" and 0)
 *  - a last line without a newline is a row like the others
 *  - a carriage return is no line end: a CRLF file's last column name and last field end in
 *    '\\r' (Num still reads the number; Col of the last name does not find it)
 *
 * \code
 *   CsvRowReader csv;
 *   if (csv.Open(path)) {
 *       const int t = csv.Col("time_ns");
 *       while (csv.Next()) { use(csv.Num(t)); }
 *       csv.Rewind(); // a second pass
 *   }
 * \endcode
 */
class CsvRowReader
{
  public:
    CsvRowReader();

    /**
     * \brief Open a file and read its header line.
     * \param path the file
     * \return false if it cannot be read or has no line at all
     */
    bool Open(const std::string& path);
    /// \return the column names of the header line
    const std::vector<std::string>& GetHeader() const;
    /**
     * \param name a column name
     * \return the index of the first column of that name, or -1
     */
    int Col(const std::string& name) const;

    /**
     * \brief Read the next row (empty lines skipped).
     * \return false at the end of the file (or if it is not open)
     */
    bool Next();
    /**
     * \brief Go back to the first row (after the header): the next Next reads it again.
     * \return false if the file cannot be read again
     */
    bool Rewind();

    /// \return the number of fields of the current row
    std::size_t GetFieldCount() const;
    /**
     * \param col a column index (Col; -1 allowed)
     * \return the current row's field, "" when the row has no such column; valid until the
     *         next Next or Rewind
     */
    std::string_view Text(int col) const;
    /**
     * \param col a column index (Col; -1 allowed)
     * \return the current row's field as a number (strtod: the longest number it starts with),
     *         0 when it is empty or the row has no such column
     */
    double Num(int col) const;

  private:
    /// Split m_line at its commas into m_fields (the commas become NULs).
    void Split();

    std::ifstream m_in;                     //!< the file
    std::streampos m_firstRow;              //!< where the rows start
    std::vector<std::string> m_header;      //!< column names
    std::string m_line;                     //!< the current line (commas replaced by NULs)
    std::vector<std::string_view> m_fields; //!< its fields, into m_line
};

} // namespace ns3

#endif // CSV_ROW_READER_H
