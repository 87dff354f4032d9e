// HtmlToMarkdown: the page text web_fetch gives the model for an HTML body.
// dsh runs turndown (atx headings, fenced code, `-` bullets, GFM tables,
// script/style/noscript removed); this is a native converter with the same
// conventions for the common elements — headings, paragraphs, line breaks,
// links, images, emphasis, inline and fenced code, lists, blockquotes, rules
// and tables — not a byte-for-byte turndown (docs/COMPATIBILITY.md).
// Pure: no I/O.
#ifndef RETRACE_TOOLS_HTML_TEXT_H_
#define RETRACE_TOOLS_HTML_TEXT_H_

#include <string>
#include <string_view>

namespace retrace::tools {

std::string HtmlToMarkdown(std::string_view html);

// &amp; &lt; &#39; &#x2014; … → UTF-8 (unknown names are left as written).
std::string DecodeEntities(std::string_view text);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_HTML_TEXT_H_
