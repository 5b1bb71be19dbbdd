// csv_cell.h: one cell of the CSV files the programs write (RFC 4180 quoting): the text as it is, or, when it holds
// a comma, a double quote or a line break (a file path, a device name or a solver spec may), the text in double
// quotes with each double quote doubled. Python's csv module and the plot scripts read it back unchanged.
#pragma once

#include <string>

namespace lqcd {

inline std::string CsvCell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace lqcd
