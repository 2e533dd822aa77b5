// Links: the URLs, e-mail addresses and paths of a text. A link is copied
// whole (one protected span, protect.hpp), and placeholder patterns do not
// match inside it (placeholders.hpp): the "%C3" of "caf%C3%A9" is a
// percent-escape, the "{id}" of "https://x/{id}" part of the address.
#pragma once

#include <string_view>
#include <vector>

#include "softalign/result.hpp"
#include "text/placeholders.hpp"

namespace softalign::internal {

// Whether a token (trim_token'd) is a link:
// - a URL (scheme://..., www....) or an e-mail address (a@b.c),
// - a path (/..., ~/..., ./..., ../..., or two slashes or more).
bool is_link(std::string_view token);

// The token [t.begin, t.end) of `text` without the quotes, brackets and
// punctuation around it (a bracket only when it is unbalanced in the token).
TextRange trim_token(std::string_view text, TextRange t);

// The links of `text`, in order, disjoint: each whitespace-separated token,
// cut at markup tags and at placeholder candidates that hold whitespace
// (`candidates`: the placeholder patterns' matches over the whole text, in
// order), trimmed, that is_link and has a letter or digit outside the
// candidates ("/home/%s/.config" is a path; "%d/%m/%Y" is three formats).
// Linear in the text size.
std::vector<TextRange> find_links(std::string_view text, const std::vector<Placeholder>& candidates);

}  // namespace softalign::internal
