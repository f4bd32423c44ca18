// Build-time tool: writes the desktop's MIME types (shared-mime-info XML), the desktop entry's
// MimeType= line and the AppStream metadata's <mediatype>s from what the producers say they read
// (Producer::inputs(), core/producers/), so a new producer's file types reach "Open with" without
// a second list.
//   Usage: ringscope_genmime MIME_XML_OUT DESKTOP_IN DESKTOP_OUT METAINFO_IN METAINFO_OUT
// The desktop template's @MIMETYPES@ becomes the types, each followed by ';'; the metainfo
// template's @MEDIATYPES@ line a <mediatype> line per type.

#include "core/producers/registry.h"

#include <QFile>
#include <QString>

#include <cstdio>
#include <string>

namespace {

std::string escaped(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

bool write(const char* path, const std::string& text)
{
    QFile f(QString::fromLocal8Bit(path));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
    return f.write(text.data(), qint64(text.size())) == qint64(text.size());
}

// The template at path with its mark replaced by text.
bool fill(const char* path, const std::string& mark, const std::string& text, std::string* out)
{
    QFile in(QString::fromLocal8Bit(path));
    if (!in.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "ringscope_genmime: cannot read %s\n", path);
        return false;
    }
    *out = in.readAll().toStdString();
    const std::size_t at = out->find(mark);
    if (at == std::string::npos) {
        std::fprintf(stderr, "ringscope_genmime: %s has no %s\n", path, mark.c_str());
        return false;
    }
    out->replace(at, mark.size(), text);
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: ringscope_genmime MIME_XML_OUT DESKTOP_IN DESKTOP_OUT "
                             "METAINFO_IN METAINFO_OUT\n");
        return 2;
    }
    std::string xml =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<!-- The trace types Ringscope opens, written at build time from what its "
        "producers read\n     (core/producers/*/producer.cpp, inputs()). Compound "
        "globs only, so plain *.json and\n     *.gz stay with editors and "
        "archivers. -->\n"
        "<mime-info xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\">\n";
    std::string types, mediatypes;
    for (const rs::Producer* p : rs::producers::all())
        for (const rs::InputKind& k : p->inputs()) {
            if (k.mimeType.empty()) continue;
            types += k.mimeType + ";";
            mediatypes += "    <mediatype>" + escaped(k.mimeType) + "</mediatype>\n";
            xml += "  <mime-type type=\"" + escaped(k.mimeType) + "\">\n";
            xml += "    <comment>" + escaped(k.mimeComment) + "</comment>\n";
            if (!k.mimeParent.empty())
                xml += "    <sub-class-of type=\"" + escaped(k.mimeParent) + "\"/>\n";
            for (const std::string& g : k.globs) {
                xml += "    <glob pattern=\"" + escaped(g) + "\"";
                if (k.mimeWeight) xml += " weight=\"" + std::to_string(k.mimeWeight) + "\"";
                if (k.caseSensitive) xml += " case-sensitive=\"true\"";
                xml += "/>\n";
            }
            if (!k.mimeMagic.empty())
                xml += "    <magic priority=\"50\">\n      " + k.mimeMagic + "\n    </magic>\n";
            xml += "  </mime-type>\n";
        }
    xml += "</mime-info>\n";

    std::string desktop, metainfo;
    if (!fill(argv[2], "@MIMETYPES@", types, &desktop) ||
        !fill(argv[4], "@MEDIATYPES@\n", mediatypes, &metainfo))
        return 1;
    if (!write(argv[1], xml) || !write(argv[3], desktop) || !write(argv[5], metainfo)) {
        std::fprintf(stderr, "ringscope_genmime: cannot write the outputs\n");
        return 1;
    }
    return 0;
}
