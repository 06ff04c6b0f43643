#include "drawing.h"

#include <filesystem>
#include <utility>

namespace moirai::cli {

namespace {

// kDrawingFormats are the formats scg and ucc render through Graphviz, by file extension.
const std::vector<std::pair<std::string, std::string>> kDrawingFormats = {
    {".svg", "svg"}, {".png", "png"}, {".pdf", "pdf"}, {".dot", "dot"}, {".gv", "dot"}};

// drawing_format is the format to render: -T's, else the output's extension; an unknown one is
// refused naming the formats.
std::string drawing_format(const std::string& given, const std::string& output) {
  const std::string known = "svg, png, pdf, dot";
  if (!given.empty()) {
    for (const auto& [extension, format] : kDrawingFormats) {
      if (given == format) return given;
    }
    throw BadInput("-T " + given + ": not one of " + known);
  }
  if (output == "-") return "svg";
  const std::string extension = std::filesystem::path(output).extension().string();
  for (const auto& [known_extension, format] : kDrawingFormats) {
    if (extension == known_extension) return format;
  }
  throw BadInput("-o " + output + ": " + (extension.empty() ? "no extension" : "'" + extension + "' is no format") +
                 " to draw in; name the file .svg, .png, .pdf or .dot (or give -T " + known + ")");
}

}  // namespace

Drawing::Drawing(std::string command, std::string usage_text, const std::string& prose)
    : Command(std::move(command), std::move(usage_text), prose) {
  output_option("output file (required; '-': SVG on standard output)");
  cli.add_option("-T,--format", format, "svg, png, pdf or dot; default: from -o's extension (.svg, .png, .pdf, "
                                         ".dot or .gv; another is refused)")
      ->type_name("FORMAT");
  json_option("print the summary line as one JSON object");
}

std::unique_ptr<OutputTarget> Drawing::prepare(const std::vector<std::string>& inputs) {
  if (output.empty()) throw BadInput("no output file given (-o FILE)");
  auto target = std::make_unique<OutputTarget>("-o", output, OutputTarget::Kind::file, inputs);
  format = drawing_format(format, output);
  return target;
}

}  // namespace moirai::cli
