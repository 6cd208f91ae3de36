/*
 * svg_impl.h - what the SVG renderers of viz/ share (svg.c defines them,
 * clocks.c uses them too): text escaped for XML, a <text> element, and
 * words wrapped into lines. Internal to viz/.
 */
#ifndef PTM_VIZ_SVG_IMPL_H
#define PTM_VIZ_SVG_IMPL_H

#include <stddef.h>
#include <stdio.h>

/* The longest line viz_svg_wrap() writes, its NUL included. */
#define VIZ_SVG_LINE 240

/* s as XML text: & < > " ' escaped, control bytes but tab dropped. */
void viz_svg_esc(FILE *out, const char *s);
/* <text> at (x, y) with its anchor, size, fill and weight (NULL: normal). */
void viz_svg_text(FILE *out, double x, double y, const char *anchor, double size, const char *fill,
                  const char *weight, const char *s);
/* s in at most maxlines lines of at most width (< VIZ_SVG_LINE)
 * characters, cut at blanks; returns the lines written. */
int viz_svg_wrap(const char *s, size_t width, char lines[][VIZ_SVG_LINE], int maxlines);

#endif
