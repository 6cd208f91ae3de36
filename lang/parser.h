/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison interface for Yacc-like parsers in C

   Copyright (C) 1984, 1989-1990, 2000-2015, 2018-2021 Free Software Foundation,
   Inc.

   This program is free software: you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation, either version 3 of the License, or
   (at your option) any later version.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program.  If not, see <https://www.gnu.org/licenses/>.  */

/* As a special exception, you may create a larger work that contains
   part or all of the Bison parser skeleton and distribute that work
   under terms of your choice, so long as that work isn't itself a
   parser generator using the skeleton or a modified version thereof
   as a parser skeleton.  Alternatively, if you modify or redistribute
   the parser skeleton itself, you may (at your option) remove this
   special exception, which will cause the skeleton and the resulting
   Bison output files to be licensed under the GNU General Public
   License without this special exception.

   This special exception was added by the Free Software Foundation in
   version 2.2 of Bison.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

#ifndef YY_LANG_YY_PARSER_H_INCLUDED
# define YY_LANG_YY_PARSER_H_INCLUDED
/* Debug traces.  */
#ifndef LANG_YYDEBUG
# if defined YYDEBUG
#if YYDEBUG
#   define LANG_YYDEBUG 1
#  else
#   define LANG_YYDEBUG 0
#  endif
# else /* ! defined YYDEBUG */
#  define LANG_YYDEBUG 0
# endif /* ! defined YYDEBUG */
#endif  /* ! defined LANG_YYDEBUG */
#if LANG_YYDEBUG
extern int lang_yydebug;
#endif
/* "%code requires" blocks.  */
#line 26 "parser.y"

#include "ast.h"
#include "diag.h"
#include "lang_impl.h"

#line 63 "parser.h"

/* Token kinds.  */
#ifndef LANG_YYTOKENTYPE
# define LANG_YYTOKENTYPE
  enum lang_yytokentype
  {
    LANG_YYEMPTY = -2,
    LANG_YYEOF = 0,                /* "end of file"  */
    LANG_YYerror = 256,            /* error  */
    LANG_YYUNDEF = 257,            /* "invalid token"  */
    IDENT = 258,                   /* "name"  */
    NUMBER = 259,                  /* "number"  */
    DURATION = 260,                /* "duration"  */
    STRING = 261,                  /* "string"  */
    NL = 262,                      /* "newline"  */
    EQ = 263,                      /* "=="  */
    NE = 264,                      /* "!="  */
    LE = 265,                      /* "<="  */
    GE = 266,                      /* ">="  */
    AND = 267,                     /* "and"  */
    ASYNC = 268,                   /* "async"  */
    BLOCKS = 269,                  /* "blocks"  */
    BSP = 270,                     /* "bsp"  */
    BUILTIN = 271,                 /* "builtin"  */
    CONSISTENCY = 272,             /* "consistency"  */
    CONST = 273,                   /* "const"  */
    COST = 274,                    /* "cost"  */
    DATA = 275,                    /* "data"  */
    DENSE = 276,                   /* "dense"  */
    DEPEND = 277,                  /* "depend"  */
    EACH = 278,                    /* "each"  */
    EVERY = 279,                   /* "every"  */
    FALSE = 280,                   /* "false"  */
    FORMAT = 281,                  /* "format"  */
    FROM = 282,                    /* "from"  */
    INT = 283,                     /* "int"  */
    INTO = 284,                    /* "into"  */
    JOB = 285,                     /* "job"  */
    LIKE = 286,                    /* "like"  */
    LUA = 287,                     /* "lua"  */
    MATRIX = 288,                  /* "matrix"  */
    NOT = 289,                     /* "not"  */
    OBJECTIVE = 290,               /* "objective"  */
    OR = 291,                      /* "or"  */
    OUTPUT = 292,                  /* "output"  */
    OVER = 293,                    /* "over"  */
    PARAM = 294,                   /* "param"  */
    PRIORITY = 295,                /* "priority"  */
    REAL = 296,                    /* "real"  */
    SCHEDULE = 297,                /* "schedule"  */
    SEED = 298,                    /* "seed"  */
    SHARD = 299,                   /* "shard"  */
    SPARSE = 300,                  /* "sparse"  */
    SSP = 301,                     /* "ssp"  */
    STOP = 302,                    /* "stop"  */
    TO = 303,                      /* "to"  */
    TRUE = 304,                    /* "true"  */
    UPDATE = 305,                  /* "update"  */
    VECTOR = 306,                  /* "vector"  */
    VOCAB = 307,                   /* "vocab"  */
    WHEN = 308                     /* "when"  */
  };
  typedef enum lang_yytokentype lang_yytoken_kind_t;
#endif

/* Value type.  */
#if ! defined LANG_YYSTYPE && ! defined LANG_YYSTYPE_IS_DECLARED
union LANG_YYSTYPE
{
#line 68 "parser.y"

    double num;
    struct ast_str str;
    struct ast_ident ident;
    struct ast_expr *expr;
    struct ast_exprs exprs;
    struct ast_type *type;
    struct ast_attrs attrs;
    struct ast_attr *attr;
    struct ast_cons cons;
    struct ast_option *option;
    struct ast_options options;
    struct ast_stmt *stmt;
    struct ast_hook hook;
    int ival;

#line 150 "parser.h"

};
typedef union LANG_YYSTYPE LANG_YYSTYPE;
# define LANG_YYSTYPE_IS_TRIVIAL 1
# define LANG_YYSTYPE_IS_DECLARED 1
#endif

/* Location type.  */
typedef struct ptm_loc LANG_YYLTYPE;




int lang_yyparse (struct lang_ctx *ctx);

/* "%code provides" blocks.  */
#line 32 "parser.y"

int lang_yylex(LANG_YYSTYPE *val, LANG_YYLTYPE *loc, struct lang_ctx *c);
int lang_scan_begin(struct lang_ctx *c);
void lang_scan_end(struct lang_ctx *c);

#line 173 "parser.h"

#endif /* !YY_LANG_YY_PARSER_H_INCLUDED  */
