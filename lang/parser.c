/* A Bison parser, made by GNU Bison 3.8.2.  */

/* Bison implementation for Yacc-like parsers in C

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

/* C LALR(1) parser skeleton written by Richard Stallman, by
   simplifying the original so-called "semantic" parser.  */

/* DO NOT RELY ON FEATURES THAT ARE NOT DOCUMENTED in the manual,
   especially those whose name start with YY_ or yy_.  They are
   private implementation details that can be changed or removed.  */

/* All symbols defined below should begin with yy or YY, to avoid
   infringing on user name space.  This should be done even for local
   variables, as they might otherwise be expanded by user macros.
   There are some unavoidable exceptions within include files to
   define necessary library symbols; they are noted "INFRINGES ON
   USER NAME SPACE" below.  */

/* Identify Bison output, and Bison version.  */
#define YYBISON 30802

/* Bison version string.  */
#define YYBISON_VERSION "3.8.2"

/* Skeleton name.  */
#define YYSKELETON_NAME "yacc.c"

/* Pure parsers.  */
#define YYPURE 2

/* Push parsers.  */
#define YYPUSH 0

/* Pull parsers.  */
#define YYPULL 1

/* Substitute the type names.  */
#define YYSTYPE         LANG_YYSTYPE
#define YYLTYPE         LANG_YYLTYPE
/* Substitute the variable and function names.  */
#define yyparse         lang_yyparse
#define yylex           lang_yylex
#define yyerror         lang_yyerror
#define yydebug         lang_yydebug
#define yynerrs         lang_yynerrs


# ifndef YY_CAST
#  ifdef __cplusplus
#   define YY_CAST(Type, Val) static_cast<Type> (Val)
#   define YY_REINTERPRET_CAST(Type, Val) reinterpret_cast<Type> (Val)
#  else
#   define YY_CAST(Type, Val) ((Type) (Val))
#   define YY_REINTERPRET_CAST(Type, Val) ((Type) (Val))
#  endif
# endif
# ifndef YY_NULLPTR
#  if defined __cplusplus
#   if 201103L <= __cplusplus
#    define YY_NULLPTR nullptr
#   else
#    define YY_NULLPTR 0
#   endif
#  else
#   define YY_NULLPTR ((void*)0)
#  endif
# endif

#include "parser.h"
/* Symbol kind.  */
enum yysymbol_kind_t
{
  YYSYMBOL_YYEMPTY = -2,
  YYSYMBOL_YYEOF = 0,                      /* "end of file"  */
  YYSYMBOL_YYerror = 1,                    /* error  */
  YYSYMBOL_YYUNDEF = 2,                    /* "invalid token"  */
  YYSYMBOL_IDENT = 3,                      /* "name"  */
  YYSYMBOL_NUMBER = 4,                     /* "number"  */
  YYSYMBOL_DURATION = 5,                   /* "duration"  */
  YYSYMBOL_STRING = 6,                     /* "string"  */
  YYSYMBOL_NL = 7,                         /* "newline"  */
  YYSYMBOL_EQ = 8,                         /* "=="  */
  YYSYMBOL_NE = 9,                         /* "!="  */
  YYSYMBOL_LE = 10,                        /* "<="  */
  YYSYMBOL_GE = 11,                        /* ">="  */
  YYSYMBOL_AND = 12,                       /* "and"  */
  YYSYMBOL_ASYNC = 13,                     /* "async"  */
  YYSYMBOL_BLOCKS = 14,                    /* "blocks"  */
  YYSYMBOL_BSP = 15,                       /* "bsp"  */
  YYSYMBOL_BUILTIN = 16,                   /* "builtin"  */
  YYSYMBOL_CONSISTENCY = 17,               /* "consistency"  */
  YYSYMBOL_CONST = 18,                     /* "const"  */
  YYSYMBOL_COST = 19,                      /* "cost"  */
  YYSYMBOL_DATA = 20,                      /* "data"  */
  YYSYMBOL_DENSE = 21,                     /* "dense"  */
  YYSYMBOL_DEPEND = 22,                    /* "depend"  */
  YYSYMBOL_EACH = 23,                      /* "each"  */
  YYSYMBOL_EVERY = 24,                     /* "every"  */
  YYSYMBOL_FALSE = 25,                     /* "false"  */
  YYSYMBOL_FORMAT = 26,                    /* "format"  */
  YYSYMBOL_FROM = 27,                      /* "from"  */
  YYSYMBOL_INT = 28,                       /* "int"  */
  YYSYMBOL_INTO = 29,                      /* "into"  */
  YYSYMBOL_JOB = 30,                       /* "job"  */
  YYSYMBOL_LIKE = 31,                      /* "like"  */
  YYSYMBOL_LUA = 32,                       /* "lua"  */
  YYSYMBOL_MATRIX = 33,                    /* "matrix"  */
  YYSYMBOL_NOT = 34,                       /* "not"  */
  YYSYMBOL_OBJECTIVE = 35,                 /* "objective"  */
  YYSYMBOL_OR = 36,                        /* "or"  */
  YYSYMBOL_OUTPUT = 37,                    /* "output"  */
  YYSYMBOL_OVER = 38,                      /* "over"  */
  YYSYMBOL_PARAM = 39,                     /* "param"  */
  YYSYMBOL_PRIORITY = 40,                  /* "priority"  */
  YYSYMBOL_REAL = 41,                      /* "real"  */
  YYSYMBOL_SCHEDULE = 42,                  /* "schedule"  */
  YYSYMBOL_SEED = 43,                      /* "seed"  */
  YYSYMBOL_SHARD = 44,                     /* "shard"  */
  YYSYMBOL_SPARSE = 45,                    /* "sparse"  */
  YYSYMBOL_SSP = 46,                       /* "ssp"  */
  YYSYMBOL_STOP = 47,                      /* "stop"  */
  YYSYMBOL_TO = 48,                        /* "to"  */
  YYSYMBOL_TRUE = 49,                      /* "true"  */
  YYSYMBOL_UPDATE = 50,                    /* "update"  */
  YYSYMBOL_VECTOR = 51,                    /* "vector"  */
  YYSYMBOL_VOCAB = 52,                     /* "vocab"  */
  YYSYMBOL_WHEN = 53,                      /* "when"  */
  YYSYMBOL_54_ = 54,                       /* ';'  */
  YYSYMBOL_55_ = 55,                       /* '='  */
  YYSYMBOL_56_ = 56,                       /* ':'  */
  YYSYMBOL_57_ = 57,                       /* '('  */
  YYSYMBOL_58_ = 58,                       /* ')'  */
  YYSYMBOL_59_ = 59,                       /* ','  */
  YYSYMBOL_60_ = 60,                       /* '['  */
  YYSYMBOL_61_ = 61,                       /* ']'  */
  YYSYMBOL_62_ = 62,                       /* '{'  */
  YYSYMBOL_63_ = 63,                       /* '}'  */
  YYSYMBOL_64_ = 64,                       /* '-'  */
  YYSYMBOL_65_ = 65,                       /* '<'  */
  YYSYMBOL_66_ = 66,                       /* '>'  */
  YYSYMBOL_67_ = 67,                       /* '+'  */
  YYSYMBOL_68_ = 68,                       /* '*'  */
  YYSYMBOL_69_ = 69,                       /* '/'  */
  YYSYMBOL_70_ = 70,                       /* '%'  */
  YYSYMBOL_71_ = 71,                       /* '^'  */
  YYSYMBOL_YYACCEPT = 72,                  /* $accept  */
  YYSYMBOL_job = 73,                       /* job  */
  YYSYMBOL_74_1 = 74,                      /* $@1  */
  YYSYMBOL_nls_opt = 75,                   /* nls_opt  */
  YYSYMBOL_end = 76,                       /* end  */
  YYSYMBOL_stmts = 77,                     /* stmts  */
  YYSYMBOL_stmt = 78,                      /* stmt  */
  YYSYMBOL_type = 79,                      /* type  */
  YYSYMBOL_storage_opt = 80,               /* storage_opt  */
  YYSYMBOL_elem_opt = 81,                  /* elem_opt  */
  YYSYMBOL_shape = 82,                     /* shape  */
  YYSYMBOL_init_opt = 83,                  /* init_opt  */
  YYSYMBOL_axis_opt = 84,                  /* axis_opt  */
  YYSYMBOL_over_opt = 85,                  /* over_opt  */
  YYSYMBOL_unit_opt = 86,                  /* unit_opt  */
  YYSYMBOL_every_opt = 87,                 /* every_opt  */
  YYSYMBOL_fn_opt = 88,                    /* fn_opt  */
  YYSYMBOL_attrs = 89,                     /* attrs  */
  YYSYMBOL_attr = 90,                      /* attr  */
  YYSYMBOL_cons = 91,                      /* cons  */
  YYSYMBOL_hook = 92,                      /* hook  */
  YYSYMBOL_options_opt = 93,               /* options_opt  */
  YYSYMBOL_options = 94,                   /* options  */
  YYSYMBOL_option_list = 95,               /* option_list  */
  YYSYMBOL_sep = 96,                       /* sep  */
  YYSYMBOL_option = 97,                    /* option  */
  YYSYMBOL_values = 98,                    /* values  */
  YYSYMBOL_value = 99,                     /* value  */
  YYSYMBOL_expr = 100,                     /* expr  */
  YYSYMBOL_or_expr = 101,                  /* or_expr  */
  YYSYMBOL_and_expr = 102,                 /* and_expr  */
  YYSYMBOL_not_expr = 103,                 /* not_expr  */
  YYSYMBOL_cmp_expr = 104,                 /* cmp_expr  */
  YYSYMBOL_cmp_op = 105,                   /* cmp_op  */
  YYSYMBOL_add_expr = 106,                 /* add_expr  */
  YYSYMBOL_mul_expr = 107,                 /* mul_expr  */
  YYSYMBOL_unary = 108,                    /* unary  */
  YYSYMBOL_pow = 109,                      /* pow  */
  YYSYMBOL_postfix = 110,                  /* postfix  */
  YYSYMBOL_primary = 111,                  /* primary  */
  YYSYMBOL_args_opt = 112,                 /* args_opt  */
  YYSYMBOL_exprs = 113                     /* exprs  */
};
typedef enum yysymbol_kind_t yysymbol_kind_t;



/* Unqualified %code blocks.  */
#line 38 "parser.y"

#include <string.h>

#include "ptm.h"

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                            \
    do {                                                                       \
        if (N) {                                                               \
            (Cur).begin = YYRHSLOC(Rhs, 1).begin;                              \
            (Cur).end = YYRHSLOC(Rhs, N).end;                                  \
        } else {                                                               \
            (Cur).begin = (Cur).end = YYRHSLOC(Rhs, 0).end;                    \
        }                                                                      \
    } while (0)

/* A builder returned NULL: out of memory, or an expression too deep
 * (already reported). Either way the parse ends. */
#define NEW(x)                                                                 \
    do {                                                                       \
        if (!((x)))                                                            \
            YYABORT;                                                           \
    } while (0)

#define YYMAXDEPTH 20000

static void lang_yyerror(LANG_YYLTYPE *loc, struct lang_ctx *ctx, const char *msg);
static struct ast_ident no_ident(void) { return (struct ast_ident){NULL, {0, 0}}; }
static struct ast_str no_str(void) { return (struct ast_str){NULL, 0}; }

#line 254 "parser.c"

#ifdef short
# undef short
#endif

/* On compilers that do not define __PTRDIFF_MAX__ etc., make sure
   <limits.h> and (if available) <stdint.h> are included
   so that the code can choose integer types of a good width.  */

#ifndef __PTRDIFF_MAX__
# include <limits.h> /* INFRINGES ON USER NAME SPACE */
# if defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stdint.h> /* INFRINGES ON USER NAME SPACE */
#  define YY_STDINT_H
# endif
#endif

/* Narrow types that promote to a signed type and that can represent a
   signed or unsigned integer of at least N bits.  In tables they can
   save space and decrease cache pressure.  Promoting to a signed type
   helps avoid bugs in integer arithmetic.  */

#ifdef __INT_LEAST8_MAX__
typedef __INT_LEAST8_TYPE__ yytype_int8;
#elif defined YY_STDINT_H
typedef int_least8_t yytype_int8;
#else
typedef signed char yytype_int8;
#endif

#ifdef __INT_LEAST16_MAX__
typedef __INT_LEAST16_TYPE__ yytype_int16;
#elif defined YY_STDINT_H
typedef int_least16_t yytype_int16;
#else
typedef short yytype_int16;
#endif

/* Work around bug in HP-UX 11.23, which defines these macros
   incorrectly for preprocessor constants.  This workaround can likely
   be removed in 2023, as HPE has promised support for HP-UX 11.23
   (aka HP-UX 11i v2) only through the end of 2022; see Table 2 of
   <https://h20195.www2.hpe.com/V2/getpdf.aspx/4AA4-7673ENW.pdf>.  */
#ifdef __hpux
# undef UINT_LEAST8_MAX
# undef UINT_LEAST16_MAX
# define UINT_LEAST8_MAX 255
# define UINT_LEAST16_MAX 65535
#endif

#if defined __UINT_LEAST8_MAX__ && __UINT_LEAST8_MAX__ <= __INT_MAX__
typedef __UINT_LEAST8_TYPE__ yytype_uint8;
#elif (!defined __UINT_LEAST8_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST8_MAX <= INT_MAX)
typedef uint_least8_t yytype_uint8;
#elif !defined __UINT_LEAST8_MAX__ && UCHAR_MAX <= INT_MAX
typedef unsigned char yytype_uint8;
#else
typedef short yytype_uint8;
#endif

#if defined __UINT_LEAST16_MAX__ && __UINT_LEAST16_MAX__ <= __INT_MAX__
typedef __UINT_LEAST16_TYPE__ yytype_uint16;
#elif (!defined __UINT_LEAST16_MAX__ && defined YY_STDINT_H \
       && UINT_LEAST16_MAX <= INT_MAX)
typedef uint_least16_t yytype_uint16;
#elif !defined __UINT_LEAST16_MAX__ && USHRT_MAX <= INT_MAX
typedef unsigned short yytype_uint16;
#else
typedef int yytype_uint16;
#endif

#ifndef YYPTRDIFF_T
# if defined __PTRDIFF_TYPE__ && defined __PTRDIFF_MAX__
#  define YYPTRDIFF_T __PTRDIFF_TYPE__
#  define YYPTRDIFF_MAXIMUM __PTRDIFF_MAX__
# elif defined PTRDIFF_MAX
#  ifndef ptrdiff_t
#   include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  endif
#  define YYPTRDIFF_T ptrdiff_t
#  define YYPTRDIFF_MAXIMUM PTRDIFF_MAX
# else
#  define YYPTRDIFF_T long
#  define YYPTRDIFF_MAXIMUM LONG_MAX
# endif
#endif

#ifndef YYSIZE_T
# ifdef __SIZE_TYPE__
#  define YYSIZE_T __SIZE_TYPE__
# elif defined size_t
#  define YYSIZE_T size_t
# elif defined __STDC_VERSION__ && 199901 <= __STDC_VERSION__
#  include <stddef.h> /* INFRINGES ON USER NAME SPACE */
#  define YYSIZE_T size_t
# else
#  define YYSIZE_T unsigned
# endif
#endif

#define YYSIZE_MAXIMUM                                  \
  YY_CAST (YYPTRDIFF_T,                                 \
           (YYPTRDIFF_MAXIMUM < YY_CAST (YYSIZE_T, -1)  \
            ? YYPTRDIFF_MAXIMUM                         \
            : YY_CAST (YYSIZE_T, -1)))

#define YYSIZEOF(X) YY_CAST (YYPTRDIFF_T, sizeof (X))


/* Stored state numbers (used for stacks). */
typedef yytype_uint8 yy_state_t;

/* State numbers in computations.  */
typedef int yy_state_fast_t;

#ifndef YY_
# if defined YYENABLE_NLS && YYENABLE_NLS
#  if ENABLE_NLS
#   include <libintl.h> /* INFRINGES ON USER NAME SPACE */
#   define YY_(Msgid) dgettext ("bison-runtime", Msgid)
#  endif
# endif
# ifndef YY_
#  define YY_(Msgid) Msgid
# endif
#endif


#ifndef YY_ATTRIBUTE_PURE
# if defined __GNUC__ && 2 < __GNUC__ + (96 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_PURE __attribute__ ((__pure__))
# else
#  define YY_ATTRIBUTE_PURE
# endif
#endif

#ifndef YY_ATTRIBUTE_UNUSED
# if defined __GNUC__ && 2 < __GNUC__ + (7 <= __GNUC_MINOR__)
#  define YY_ATTRIBUTE_UNUSED __attribute__ ((__unused__))
# else
#  define YY_ATTRIBUTE_UNUSED
# endif
#endif

/* Suppress unused-variable warnings by "using" E.  */
#if ! defined lint || defined __GNUC__
# define YY_USE(E) ((void) (E))
#else
# define YY_USE(E) /* empty */
#endif

/* Suppress an incorrect diagnostic about yylval being uninitialized.  */
#if defined __GNUC__ && ! defined __ICC && 406 <= __GNUC__ * 100 + __GNUC_MINOR__
# if __GNUC__ * 100 + __GNUC_MINOR__ < 407
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")
# else
#  define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN                           \
    _Pragma ("GCC diagnostic push")                                     \
    _Pragma ("GCC diagnostic ignored \"-Wuninitialized\"")              \
    _Pragma ("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
# endif
# define YY_IGNORE_MAYBE_UNINITIALIZED_END      \
    _Pragma ("GCC diagnostic pop")
#else
# define YY_INITIAL_VALUE(Value) Value
#endif
#ifndef YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
# define YY_IGNORE_MAYBE_UNINITIALIZED_END
#endif
#ifndef YY_INITIAL_VALUE
# define YY_INITIAL_VALUE(Value) /* Nothing. */
#endif

#if defined __cplusplus && defined __GNUC__ && ! defined __ICC && 6 <= __GNUC__
# define YY_IGNORE_USELESS_CAST_BEGIN                          \
    _Pragma ("GCC diagnostic push")                            \
    _Pragma ("GCC diagnostic ignored \"-Wuseless-cast\"")
# define YY_IGNORE_USELESS_CAST_END            \
    _Pragma ("GCC diagnostic pop")
#endif
#ifndef YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_BEGIN
# define YY_IGNORE_USELESS_CAST_END
#endif


#define YY_ASSERT(E) ((void) (0 && (E)))

#if 1

/* The parser invokes alloca or malloc; define the necessary symbols.  */

# ifdef YYSTACK_USE_ALLOCA
#  if YYSTACK_USE_ALLOCA
#   ifdef __GNUC__
#    define YYSTACK_ALLOC __builtin_alloca
#   elif defined __BUILTIN_VA_ARG_INCR
#    include <alloca.h> /* INFRINGES ON USER NAME SPACE */
#   elif defined _AIX
#    define YYSTACK_ALLOC __alloca
#   elif defined _MSC_VER
#    include <malloc.h> /* INFRINGES ON USER NAME SPACE */
#    define alloca _alloca
#   else
#    define YYSTACK_ALLOC alloca
#    if ! defined _ALLOCA_H && ! defined EXIT_SUCCESS
#     include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
      /* Use EXIT_SUCCESS as a witness for stdlib.h.  */
#     ifndef EXIT_SUCCESS
#      define EXIT_SUCCESS 0
#     endif
#    endif
#   endif
#  endif
# endif

# ifdef YYSTACK_ALLOC
   /* Pacify GCC's 'empty if-body' warning.  */
#  define YYSTACK_FREE(Ptr) do { /* empty */; } while (0)
#  ifndef YYSTACK_ALLOC_MAXIMUM
    /* The OS might guarantee only one guard page at the bottom of the stack,
       and a page size can be as small as 4096 bytes.  So we cannot safely
       invoke alloca (N) if N exceeds 4096.  Use a slightly smaller number
       to allow for a few compiler-allocated temporary stack slots.  */
#   define YYSTACK_ALLOC_MAXIMUM 4032 /* reasonable circa 2006 */
#  endif
# else
#  define YYSTACK_ALLOC YYMALLOC
#  define YYSTACK_FREE YYFREE
#  ifndef YYSTACK_ALLOC_MAXIMUM
#   define YYSTACK_ALLOC_MAXIMUM YYSIZE_MAXIMUM
#  endif
#  if (defined __cplusplus && ! defined EXIT_SUCCESS \
       && ! ((defined YYMALLOC || defined malloc) \
             && (defined YYFREE || defined free)))
#   include <stdlib.h> /* INFRINGES ON USER NAME SPACE */
#   ifndef EXIT_SUCCESS
#    define EXIT_SUCCESS 0
#   endif
#  endif
#  ifndef YYMALLOC
#   define YYMALLOC malloc
#   if ! defined malloc && ! defined EXIT_SUCCESS
void *malloc (YYSIZE_T); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
#  ifndef YYFREE
#   define YYFREE free
#   if ! defined free && ! defined EXIT_SUCCESS
void free (void *); /* INFRINGES ON USER NAME SPACE */
#   endif
#  endif
# endif
#endif /* 1 */

#if (! defined yyoverflow \
     && (! defined __cplusplus \
         || (defined LANG_YYLTYPE_IS_TRIVIAL && LANG_YYLTYPE_IS_TRIVIAL \
             && defined LANG_YYSTYPE_IS_TRIVIAL && LANG_YYSTYPE_IS_TRIVIAL)))

/* A type that is properly aligned for any stack member.  */
union yyalloc
{
  yy_state_t yyss_alloc;
  YYSTYPE yyvs_alloc;
  YYLTYPE yyls_alloc;
};

/* The size of the maximum gap between one aligned stack and the next.  */
# define YYSTACK_GAP_MAXIMUM (YYSIZEOF (union yyalloc) - 1)

/* The size of an array large to enough to hold all stacks, each with
   N elements.  */
# define YYSTACK_BYTES(N) \
     ((N) * (YYSIZEOF (yy_state_t) + YYSIZEOF (YYSTYPE) \
             + YYSIZEOF (YYLTYPE)) \
      + 2 * YYSTACK_GAP_MAXIMUM)

# define YYCOPY_NEEDED 1

/* Relocate STACK from its old location to the new one.  The
   local variables YYSIZE and YYSTACKSIZE give the old and new number of
   elements in the stack, and YYPTR gives the new location of the
   stack.  Advance YYPTR to a properly aligned location for the next
   stack.  */
# define YYSTACK_RELOCATE(Stack_alloc, Stack)                           \
    do                                                                  \
      {                                                                 \
        YYPTRDIFF_T yynewbytes;                                         \
        YYCOPY (&yyptr->Stack_alloc, Stack, yysize);                    \
        Stack = &yyptr->Stack_alloc;                                    \
        yynewbytes = yystacksize * YYSIZEOF (*Stack) + YYSTACK_GAP_MAXIMUM; \
        yyptr += yynewbytes / YYSIZEOF (*yyptr);                        \
      }                                                                 \
    while (0)

#endif

#if defined YYCOPY_NEEDED && YYCOPY_NEEDED
/* Copy COUNT objects from SRC to DST.  The source and destination do
   not overlap.  */
# ifndef YYCOPY
#  if defined __GNUC__ && 1 < __GNUC__
#   define YYCOPY(Dst, Src, Count) \
      __builtin_memcpy (Dst, Src, YY_CAST (YYSIZE_T, (Count)) * sizeof (*(Src)))
#  else
#   define YYCOPY(Dst, Src, Count)              \
      do                                        \
        {                                       \
          YYPTRDIFF_T yyi;                      \
          for (yyi = 0; yyi < (Count); yyi++)   \
            (Dst)[yyi] = (Src)[yyi];            \
        }                                       \
      while (0)
#  endif
# endif
#endif /* !YYCOPY_NEEDED */

/* YYFINAL -- State number of the termination state.  */
#define YYFINAL  4
/* YYLAST -- Last index in YYTABLE.  */
#define YYLAST   214

/* YYNTOKENS -- Number of terminals.  */
#define YYNTOKENS  72
/* YYNNTS -- Number of nonterminals.  */
#define YYNNTS  42
/* YYNRULES -- Number of rules.  */
#define YYNRULES  126
/* YYNSTATES -- Number of states.  */
#define YYNSTATES  223

/* YYMAXUTOK -- Last valid token kind.  */
#define YYMAXUTOK   308


/* YYTRANSLATE(TOKEN-NUM) -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex, with out-of-bounds checking.  */
#define YYTRANSLATE(YYX)                                \
  (0 <= (YYX) && (YYX) <= YYMAXUTOK                     \
   ? YY_CAST (yysymbol_kind_t, yytranslate[YYX])        \
   : YYSYMBOL_YYUNDEF)

/* YYTRANSLATE[TOKEN-NUM] -- Symbol number corresponding to TOKEN-NUM
   as returned by yylex.  */
static const yytype_int8 yytranslate[] =
{
       0,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,    70,     2,     2,
      57,    58,    68,    67,    59,    64,     2,    69,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,    56,    54,
      65,    55,    66,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,    60,     2,    61,    71,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,    62,     2,    63,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     2,     2,     2,     2,
       2,     2,     2,     2,     2,     2,     1,     2,     3,     4,
       5,     6,     7,     8,     9,    10,    11,    12,    13,    14,
      15,    16,    17,    18,    19,    20,    21,    22,    23,    24,
      25,    26,    27,    28,    29,    30,    31,    32,    33,    34,
      35,    36,    37,    38,    39,    40,    41,    42,    43,    44,
      45,    46,    47,    48,    49,    50,    51,    52,    53
};

#if LANG_YYDEBUG
/* YYRLINE[YYN] -- Source line where rule number YYN was defined.  */
static const yytype_int16 yyrline[] =
{
       0,   119,   119,   119,   120,   123,   123,   125,   125,   128,
     129,   130,   131,   135,   137,   139,   141,   143,   145,   147,
     149,   151,   153,   155,   157,   159,   161,   163,   165,   167,
     173,   175,   178,   178,   179,   180,   180,   181,   182,   182,
     184,   184,   185,   185,   186,   186,   187,   187,   188,   188,
     189,   189,   192,   193,   196,   197,   198,   199,   200,   205,
     206,   207,   212,   214,   220,   221,   224,   225,   226,   229,
     230,   232,   232,   232,   236,   237,   238,   241,   242,   245,
     246,   247,   248,   249,   250,   251,   256,   258,   259,   262,
     263,   266,   267,   270,   271,   274,   274,   274,   275,   275,
     275,   278,   279,   280,   283,   284,   285,   286,   289,   290,
     293,   294,   297,   298,   301,   302,   303,   304,   305,   306,
     307,   308,   309,   311,   311,   313,   314
};
#endif

/** Accessing symbol of state STATE.  */
#define YY_ACCESSING_SYMBOL(State) YY_CAST (yysymbol_kind_t, yystos[State])

#if 1
/* The user-facing name of the symbol whose (internal) number is
   YYSYMBOL.  No bounds checking.  */
static const char *yysymbol_name (yysymbol_kind_t yysymbol) YY_ATTRIBUTE_UNUSED;

static const char *
yysymbol_name (yysymbol_kind_t yysymbol)
{
  static const char *const yy_sname[] =
  {
  "end of file", "error", "invalid token", "name", "number", "duration",
  "string", "newline", "==", "!=", "<=", ">=", "and", "async", "blocks",
  "bsp", "builtin", "consistency", "const", "cost", "data", "dense",
  "depend", "each", "every", "false", "format", "from", "int", "into",
  "job", "like", "lua", "matrix", "not", "objective", "or", "output",
  "over", "param", "priority", "real", "schedule", "seed", "shard",
  "sparse", "ssp", "stop", "to", "true", "update", "vector", "vocab",
  "when", "';'", "'='", "':'", "'('", "')'", "','", "'['", "']'", "'{'",
  "'}'", "'-'", "'<'", "'>'", "'+'", "'*'", "'/'", "'%'", "'^'", "$accept",
  "job", "$@1", "nls_opt", "end", "stmts", "stmt", "type", "storage_opt",
  "elem_opt", "shape", "init_opt", "axis_opt", "over_opt", "unit_opt",
  "every_opt", "fn_opt", "attrs", "attr", "cons", "hook", "options_opt",
  "options", "option_list", "sep", "option", "values", "value", "expr",
  "or_expr", "and_expr", "not_expr", "cmp_expr", "cmp_op", "add_expr",
  "mul_expr", "unary", "pow", "postfix", "primary", "args_opt", "exprs", YY_NULLPTR
  };
  return yy_sname[yysymbol];
}
#endif

#define YYPACT_NINF (-108)

#define yypact_value_is_default(Yyn) \
  ((Yyn) == YYPACT_NINF)

#define YYTABLE_NINF (-5)

#define yytable_value_is_error(Yyn) \
  0

/* YYPACT[STATE-NUM] -- Index in YYTABLE of the portion describing
   STATE-NUM.  */
static const yytype_int16 yypact[] =
{
      52,  -108,    70,    21,  -108,    20,    18,  -108,  -108,  -108,
      20,    76,  -108,    20,    97,    27,   109,   111,   114,   121,
      30,   125,   126,   132,   133,     3,    88,    30,  -108,    20,
    -108,  -108,    89,  -108,  -108,     3,  -108,    90,    91,    96,
     -12,   143,   147,    92,   108,   102,   104,   127,   107,  -108,
    -108,  -108,  -108,     3,  -108,  -108,     3,    14,  -108,   130,
     156,  -108,  -108,    15,    63,  -108,  -108,    31,  -108,     3,
      92,  -108,   120,   166,  -108,     3,   168,     9,   167,   169,
    -108,   170,     1,   153,  -108,   172,     9,   176,   177,    92,
       3,  -108,   123,  -108,     3,     3,  -108,  -108,  -108,  -108,
      14,  -108,  -108,    14,    14,    14,    14,    14,     3,    14,
    -108,  -108,   179,  -108,   128,  -108,  -108,   157,    56,  -108,
     129,  -108,  -108,  -108,   134,  -108,    29,  -108,     3,   180,
    -108,   135,   136,  -108,  -108,  -108,   137,   138,  -108,   156,
    -108,    63,    63,    43,  -108,  -108,  -108,    -6,  -108,  -108,
      12,   144,     3,  -108,  -108,    35,   139,  -108,     8,  -108,
    -108,  -108,  -108,     2,  -108,  -108,  -108,    17,     3,  -108,
     145,  -108,     3,  -108,     3,     3,     3,  -108,  -108,  -108,
     131,   182,     8,  -108,  -108,  -108,  -108,  -108,  -108,   184,
    -108,  -108,  -108,    27,   189,    44,   187,  -108,  -108,    17,
       3,  -108,  -108,  -108,  -108,    17,     3,   146,  -108,  -108,
    -108,  -108,   198,  -108,  -108,    28,   199,  -108,  -108,   148,
     151,     3,  -108
};

/* YYDEFACT[STATE-NUM] -- Default reduction number in state STATE-NUM.
   Performed when YYTABLE does not specify something else to do.  Zero
   means the default is an error.  */
static const yytype_int8 yydefact[] =
{
       5,     6,     0,     0,     1,     0,     0,     7,     8,     9,
       0,     0,     2,     0,     0,     0,     0,     0,     0,     0,
       0,     0,     0,     0,     0,     0,     0,     0,    11,     0,
       9,    12,     0,    61,    60,     0,    24,     0,     0,     0,
       0,     0,     0,    64,     0,     0,     0,    44,   119,   114,
     115,   116,   118,     0,   120,   117,     0,     0,    29,    86,
      87,    89,    91,    93,   101,   104,   108,   110,   112,     0,
      64,    10,     0,     0,    59,     0,     0,    32,     0,     0,
      63,    50,     0,    48,    65,     0,    32,     0,     0,    64,
     123,    92,     0,   109,     0,     0,    95,    96,    98,   100,
       0,    97,    99,     0,     0,     0,     0,     0,     0,     0,
      27,    25,    42,    13,     0,    33,    34,     0,    35,    20,
       0,    51,    62,    76,    77,    66,     0,    69,     0,    46,
      52,    40,     0,    45,    23,   125,     0,   124,   122,    88,
      90,   103,   102,    94,   105,   106,   107,     0,   111,    43,
      16,     0,     0,    36,    37,     0,     0,    77,    74,    71,
      73,    72,    67,     0,    49,    47,    26,    28,     0,    52,
       0,   121,     0,   113,     0,     0,     0,    52,    39,    38,
      30,     0,    75,    85,    79,    81,    82,    84,    83,     0,
      78,    68,    70,     0,     0,     0,     0,    53,    41,    15,
       0,   126,    17,    18,    22,    14,     0,     0,    80,    58,
      54,    55,     0,    57,    21,     0,     0,    56,    31,     0,
       0,     0,    19
};

/* YYPGOTO[NTERM-NUM].  */
static const yytype_int16 yypgoto[] =
{
    -108,  -108,  -108,  -108,    19,   175,  -108,   122,  -108,  -108,
    -108,  -108,  -108,  -108,  -108,  -108,  -108,   -68,  -108,    16,
     183,    -4,  -108,  -108,  -108,    48,    50,  -108,   -25,  -108,
     118,   -37,  -108,  -108,   110,    22,    -1,  -108,  -108,  -108,
    -108,  -107
};

/* YYDEFGOTO[NTERM-NUM].  */
static const yytype_uint8 yydefgoto[] =
{
       0,     2,    30,     3,     9,    11,    29,   117,   118,   155,
     180,   169,   150,    89,   166,   129,   122,   167,   197,    36,
      43,    83,    84,   126,   163,   127,   158,   190,   135,    59,
      60,    61,    62,   104,    63,    64,    65,    66,    67,    68,
     136,   137
};

/* YYTABLE[YYPACT[STATE-NUM]] -- What to do in state STATE-NUM.  If
   positive, shift that token.  If negative, reduce the rule whose
   number is the opposite.  If YYTABLE_NINF, syntax error.  */
static const yytype_int16 yytable[] =
{
      58,   147,   123,   123,   124,   124,    48,    49,    50,    51,
      74,   183,   184,   185,   186,    78,    91,    48,    49,    50,
      51,    10,     5,    96,    97,    98,    99,     7,    52,    12,
     115,    92,    31,   187,   193,   174,   159,    53,    54,    52,
      33,   175,    34,   194,   110,    79,    41,   211,    71,    54,
     113,     6,    55,   172,   116,   173,    93,   188,   140,     1,
      56,   195,    42,    55,   125,   191,   111,    57,   178,   196,
       4,    56,   189,    35,     8,   212,    -4,    13,    57,   100,
     101,   102,   103,   160,   153,   134,   179,   172,   161,   218,
      14,   108,   162,    15,    16,    17,    18,   154,    19,   215,
      32,   199,   109,   164,   144,   145,   146,   100,   148,   205,
     103,    20,    37,    21,    38,    22,    23,    39,    24,    25,
      -3,    13,   141,    26,    40,   142,    27,   177,    44,    45,
      28,   105,   106,   107,    14,    46,    47,    15,    16,    17,
      18,    69,    19,   198,    73,    75,    80,   201,    76,   202,
     203,   204,    77,    81,    82,    20,    85,    21,    86,    22,
      23,    87,    24,    25,    90,    88,    94,    26,    95,   112,
      27,   114,   120,   119,    28,   214,   121,   128,   130,   132,
     133,   138,   149,   165,   152,   207,   151,   156,   208,   157,
     168,   206,   210,   213,   170,   171,   222,   172,   181,   176,
     200,   217,   219,   216,   221,    72,   220,   182,   131,   209,
      70,   192,   139,     0,   143
};

static const yytype_int16 yycheck[] =
{
      25,   108,     1,     1,     3,     3,     3,     4,     5,     6,
      35,     3,     4,     5,     6,    27,    53,     3,     4,     5,
       6,     3,     1,     8,     9,    10,    11,     7,    25,    10,
      21,    56,    13,    25,    17,    23,     7,    34,    35,    25,
      13,    29,    15,    26,    69,    57,    16,     3,    29,    35,
      75,    30,    49,    59,    45,    61,    57,    49,    95,     7,
      57,    44,    32,    49,    63,    63,    70,    64,    33,    52,
       0,    57,    64,    46,    54,    31,     0,     1,    64,    64,
      65,    66,    67,    54,    28,    89,    51,    59,    59,    61,
      14,    60,    63,    17,    18,    19,    20,    41,    22,   206,
       3,   169,    71,   128,   105,   106,   107,    64,   109,   177,
      67,    35,     3,    37,     3,    39,    40,     3,    42,    43,
       0,     1,   100,    47,     3,   103,    50,   152,     3,     3,
      54,    68,    69,    70,    14,     3,     3,    17,    18,    19,
      20,    53,    22,   168,    55,    55,     3,   172,    57,   174,
     175,   176,    56,     6,    62,    35,    48,    37,    56,    39,
      40,    57,    42,    43,    57,    38,    36,    47,    12,     3,
      50,     3,     3,     6,    54,   200,     6,    24,     6,     3,
       3,    58,     3,     3,    27,     3,    58,    58,     4,    55,
      55,    60,     3,     6,    58,    58,   221,    59,    59,    55,
      55,     3,     3,    57,    53,    30,    58,   157,    86,   193,
      27,   163,    94,    -1,   104
};

/* YYSTOS[STATE-NUM] -- The symbol kind of the accessing symbol of
   state STATE-NUM.  */
static const yytype_int8 yystos[] =
{
       0,     7,    73,    75,     0,     1,    30,     7,    54,    76,
       3,    77,    76,     1,    14,    17,    18,    19,    20,    22,
      35,    37,    39,    40,    42,    43,    47,    50,    54,    78,
      74,    76,     3,    13,    15,    46,    91,     3,     3,     3,
       3,    16,    32,    92,     3,     3,     3,     3,     3,     4,
       5,     6,    25,    34,    35,    49,    57,    64,   100,   101,
     102,   103,   104,   106,   107,   108,   109,   110,   111,    53,
      92,    76,    77,    55,   100,    55,    57,    56,    27,    57,
       3,     6,    62,    93,    94,    48,    56,    57,    38,    85,
      57,   103,   100,   108,    36,    12,     8,     9,    10,    11,
      64,    65,    66,    67,   105,    68,    69,    70,    60,    71,
     100,    93,     3,   100,     3,    21,    45,    79,    80,     6,
       3,     6,    88,     1,     3,    63,    95,    97,    24,    87,
       6,    79,     3,     3,    93,   100,   112,   113,    58,   102,
     103,   107,   107,   106,   108,   108,   108,   113,   108,     3,
      84,    58,    27,    28,    41,    81,    58,    55,    98,     7,
      54,    59,    63,    96,   100,     3,    86,    89,    55,    83,
      58,    58,    59,    61,    23,    29,    55,   100,    33,    51,
      82,    59,    98,     3,     4,     5,     6,    25,    49,    64,
      99,    63,    97,    17,    26,    44,    52,    90,   100,    89,
      55,   100,   100,   100,   100,    89,    60,     3,     4,    91,
       3,     3,    31,     6,   100,   113,    57,     3,    61,     3,
      58,    53,   100
};

/* YYR1[RULE-NUM] -- Symbol kind of the left-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr1[] =
{
       0,    72,    74,    73,    73,    75,    75,    76,    76,    77,
      77,    77,    77,    78,    78,    78,    78,    78,    78,    78,
      78,    78,    78,    78,    78,    78,    78,    78,    78,    78,
      79,    79,    80,    80,    80,    81,    81,    81,    82,    82,
      83,    83,    84,    84,    85,    85,    86,    86,    87,    87,
      88,    88,    89,    89,    90,    90,    90,    90,    90,    91,
      91,    91,    92,    92,    93,    93,    94,    94,    94,    95,
      95,    96,    96,    96,    97,    97,    97,    98,    98,    99,
      99,    99,    99,    99,    99,    99,   100,   101,   101,   102,
     102,   103,   103,   104,   104,   105,   105,   105,   105,   105,
     105,   106,   106,   106,   107,   107,   107,   107,   108,   108,
     109,   109,   110,   110,   111,   111,   111,   111,   111,   111,
     111,   111,   111,   112,   112,   113,   113
};

/* YYR2[RULE-NUM] -- Number of symbols on the right-hand side of rule RULE-NUM.  */
static const yytype_int8 yyr2[] =
{
       0,     2,     0,     6,     4,     0,     1,     1,     1,     0,
       3,     2,     3,     4,     7,     6,     5,     7,     7,    12,
       4,     7,     7,     4,     2,     3,     5,     3,     5,     2,
       3,     6,     0,     1,     1,     0,     1,     1,     1,     1,
       0,     2,     0,     1,     0,     2,     0,     1,     0,     2,
       0,     1,     0,     2,     2,     2,     3,     2,     2,     2,
       1,     1,     3,     2,     0,     1,     2,     3,     4,     1,
       3,     1,     1,     1,     2,     3,     1,     0,     2,     1,
       2,     1,     1,     1,     1,     1,     1,     1,     3,     1,
       3,     1,     2,     1,     3,     1,     1,     1,     1,     1,
       1,     1,     3,     3,     1,     3,     3,     3,     1,     2,
       1,     3,     1,     4,     1,     1,     1,     1,     1,     1,
       1,     4,     3,     0,     1,     1,     3
};


enum { YYENOMEM = -2 };

#define yyerrok         (yyerrstatus = 0)
#define yyclearin       (yychar = LANG_YYEMPTY)

#define YYACCEPT        goto yyacceptlab
#define YYABORT         goto yyabortlab
#define YYERROR         goto yyerrorlab
#define YYNOMEM         goto yyexhaustedlab


#define YYRECOVERING()  (!!yyerrstatus)

#define YYBACKUP(Token, Value)                                    \
  do                                                              \
    if (yychar == LANG_YYEMPTY)                                        \
      {                                                           \
        yychar = (Token);                                         \
        yylval = (Value);                                         \
        YYPOPSTACK (yylen);                                       \
        yystate = *yyssp;                                         \
        goto yybackup;                                            \
      }                                                           \
    else                                                          \
      {                                                           \
        yyerror (&yylloc, ctx, YY_("syntax error: cannot back up")); \
        YYERROR;                                                  \
      }                                                           \
  while (0)

/* Backward compatibility with an undocumented macro.
   Use LANG_YYerror or LANG_YYUNDEF. */
#define YYERRCODE LANG_YYUNDEF

/* YYLLOC_DEFAULT -- Set CURRENT to span from RHS[1] to RHS[N].
   If N is 0, then set CURRENT to the empty location which ends
   the previous symbol: RHS[0] (always defined).  */

#ifndef YYLLOC_DEFAULT
# define YYLLOC_DEFAULT(Current, Rhs, N)                                \
    do                                                                  \
      if (N)                                                            \
        {                                                               \
          (Current).first_line   = YYRHSLOC (Rhs, 1).first_line;        \
          (Current).first_column = YYRHSLOC (Rhs, 1).first_column;      \
          (Current).last_line    = YYRHSLOC (Rhs, N).last_line;         \
          (Current).last_column  = YYRHSLOC (Rhs, N).last_column;       \
        }                                                               \
      else                                                              \
        {                                                               \
          (Current).first_line   = (Current).last_line   =              \
            YYRHSLOC (Rhs, 0).last_line;                                \
          (Current).first_column = (Current).last_column =              \
            YYRHSLOC (Rhs, 0).last_column;                              \
        }                                                               \
    while (0)
#endif

#define YYRHSLOC(Rhs, K) ((Rhs)[K])


/* Enable debugging if requested.  */
#if LANG_YYDEBUG

# ifndef YYFPRINTF
#  include <stdio.h> /* INFRINGES ON USER NAME SPACE */
#  define YYFPRINTF fprintf
# endif

# define YYDPRINTF(Args)                        \
do {                                            \
  if (yydebug)                                  \
    YYFPRINTF Args;                             \
} while (0)


/* YYLOCATION_PRINT -- Print the location on the stream.
   This macro was not mandated originally: define only if we know
   we won't break user code: when these are the locations we know.  */

# ifndef YYLOCATION_PRINT

#  if defined YY_LOCATION_PRINT

   /* Temporary convenience wrapper in case some people defined the
      undocumented and private YY_LOCATION_PRINT macros.  */
#   define YYLOCATION_PRINT(File, Loc)  YY_LOCATION_PRINT(File, *(Loc))

#  elif defined LANG_YYLTYPE_IS_TRIVIAL && LANG_YYLTYPE_IS_TRIVIAL

/* Print *YYLOCP on YYO.  Private, do not rely on its existence. */

YY_ATTRIBUTE_UNUSED
static int
yy_location_print_ (FILE *yyo, YYLTYPE const * const yylocp)
{
  int res = 0;
  int end_col = 0 != yylocp->last_column ? yylocp->last_column - 1 : 0;
  if (0 <= yylocp->first_line)
    {
      res += YYFPRINTF (yyo, "%d", yylocp->first_line);
      if (0 <= yylocp->first_column)
        res += YYFPRINTF (yyo, ".%d", yylocp->first_column);
    }
  if (0 <= yylocp->last_line)
    {
      if (yylocp->first_line < yylocp->last_line)
        {
          res += YYFPRINTF (yyo, "-%d", yylocp->last_line);
          if (0 <= end_col)
            res += YYFPRINTF (yyo, ".%d", end_col);
        }
      else if (0 <= end_col && yylocp->first_column < end_col)
        res += YYFPRINTF (yyo, "-%d", end_col);
    }
  return res;
}

#   define YYLOCATION_PRINT  yy_location_print_

    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT(File, Loc)  YYLOCATION_PRINT(File, &(Loc))

#  else

#   define YYLOCATION_PRINT(File, Loc) ((void) 0)
    /* Temporary convenience wrapper in case some people defined the
       undocumented and private YY_LOCATION_PRINT macros.  */
#   define YY_LOCATION_PRINT  YYLOCATION_PRINT

#  endif
# endif /* !defined YYLOCATION_PRINT */


# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)                    \
do {                                                                      \
  if (yydebug)                                                            \
    {                                                                     \
      YYFPRINTF (stderr, "%s ", Title);                                   \
      yy_symbol_print (stderr,                                            \
                  Kind, Value, Location, ctx); \
      YYFPRINTF (stderr, "\n");                                           \
    }                                                                     \
} while (0)


/*-----------------------------------.
| Print this symbol's value on YYO.  |
`-----------------------------------*/

static void
yy_symbol_value_print (FILE *yyo,
                       yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, struct lang_ctx *ctx)
{
  FILE *yyoutput = yyo;
  YY_USE (yyoutput);
  YY_USE (yylocationp);
  YY_USE (ctx);
  if (!yyvaluep)
    return;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}


/*---------------------------.
| Print this symbol on YYO.  |
`---------------------------*/

static void
yy_symbol_print (FILE *yyo,
                 yysymbol_kind_t yykind, YYSTYPE const * const yyvaluep, YYLTYPE const * const yylocationp, struct lang_ctx *ctx)
{
  YYFPRINTF (yyo, "%s %s (",
             yykind < YYNTOKENS ? "token" : "nterm", yysymbol_name (yykind));

  YYLOCATION_PRINT (yyo, yylocationp);
  YYFPRINTF (yyo, ": ");
  yy_symbol_value_print (yyo, yykind, yyvaluep, yylocationp, ctx);
  YYFPRINTF (yyo, ")");
}

/*------------------------------------------------------------------.
| yy_stack_print -- Print the state stack from its BOTTOM up to its |
| TOP (included).                                                   |
`------------------------------------------------------------------*/

static void
yy_stack_print (yy_state_t *yybottom, yy_state_t *yytop)
{
  YYFPRINTF (stderr, "Stack now");
  for (; yybottom <= yytop; yybottom++)
    {
      int yybot = *yybottom;
      YYFPRINTF (stderr, " %d", yybot);
    }
  YYFPRINTF (stderr, "\n");
}

# define YY_STACK_PRINT(Bottom, Top)                            \
do {                                                            \
  if (yydebug)                                                  \
    yy_stack_print ((Bottom), (Top));                           \
} while (0)


/*------------------------------------------------.
| Report that the YYRULE is going to be reduced.  |
`------------------------------------------------*/

static void
yy_reduce_print (yy_state_t *yyssp, YYSTYPE *yyvsp, YYLTYPE *yylsp,
                 int yyrule, struct lang_ctx *ctx)
{
  int yylno = yyrline[yyrule];
  int yynrhs = yyr2[yyrule];
  int yyi;
  YYFPRINTF (stderr, "Reducing stack by rule %d (line %d):\n",
             yyrule - 1, yylno);
  /* The symbols being reduced.  */
  for (yyi = 0; yyi < yynrhs; yyi++)
    {
      YYFPRINTF (stderr, "   $%d = ", yyi + 1);
      yy_symbol_print (stderr,
                       YY_ACCESSING_SYMBOL (+yyssp[yyi + 1 - yynrhs]),
                       &yyvsp[(yyi + 1) - (yynrhs)],
                       &(yylsp[(yyi + 1) - (yynrhs)]), ctx);
      YYFPRINTF (stderr, "\n");
    }
}

# define YY_REDUCE_PRINT(Rule)          \
do {                                    \
  if (yydebug)                          \
    yy_reduce_print (yyssp, yyvsp, yylsp, Rule, ctx); \
} while (0)

/* Nonzero means print parse trace.  It is left uninitialized so that
   multiple parsers can coexist.  */
int yydebug;
#else /* !LANG_YYDEBUG */
# define YYDPRINTF(Args) ((void) 0)
# define YY_SYMBOL_PRINT(Title, Kind, Value, Location)
# define YY_STACK_PRINT(Bottom, Top)
# define YY_REDUCE_PRINT(Rule)
#endif /* !LANG_YYDEBUG */


/* YYINITDEPTH -- initial size of the parser's stacks.  */
#ifndef YYINITDEPTH
# define YYINITDEPTH 200
#endif

/* YYMAXDEPTH -- maximum size the stacks can grow to (effective only
   if the built-in stack extension method is used).

   Do not make this value too large; the results are undefined if
   YYSTACK_ALLOC_MAXIMUM < YYSTACK_BYTES (YYMAXDEPTH)
   evaluated with infinite-precision integer arithmetic.  */

#ifndef YYMAXDEPTH
# define YYMAXDEPTH 10000
#endif


/* Context of a parse error.  */
typedef struct
{
  yy_state_t *yyssp;
  yysymbol_kind_t yytoken;
  YYLTYPE *yylloc;
} yypcontext_t;

/* Put in YYARG at most YYARGN of the expected tokens given the
   current YYCTX, and return the number of tokens stored in YYARG.  If
   YYARG is null, return the number of expected tokens (guaranteed to
   be less than YYNTOKENS).  Return YYENOMEM on memory exhaustion.
   Return 0 if there are more than YYARGN expected tokens, yet fill
   YYARG up to YYARGN. */
static int
yypcontext_expected_tokens (const yypcontext_t *yyctx,
                            yysymbol_kind_t yyarg[], int yyargn)
{
  /* Actual size of YYARG. */
  int yycount = 0;
  int yyn = yypact[+*yyctx->yyssp];
  if (!yypact_value_is_default (yyn))
    {
      /* Start YYX at -YYN if negative to avoid negative indexes in
         YYCHECK.  In other words, skip the first -YYN actions for
         this state because they are default actions.  */
      int yyxbegin = yyn < 0 ? -yyn : 0;
      /* Stay within bounds of both yycheck and yytname.  */
      int yychecklim = YYLAST - yyn + 1;
      int yyxend = yychecklim < YYNTOKENS ? yychecklim : YYNTOKENS;
      int yyx;
      for (yyx = yyxbegin; yyx < yyxend; ++yyx)
        if (yycheck[yyx + yyn] == yyx && yyx != YYSYMBOL_YYerror
            && !yytable_value_is_error (yytable[yyx + yyn]))
          {
            if (!yyarg)
              ++yycount;
            else if (yycount == yyargn)
              return 0;
            else
              yyarg[yycount++] = YY_CAST (yysymbol_kind_t, yyx);
          }
    }
  if (yyarg && yycount == 0 && 0 < yyargn)
    yyarg[0] = YYSYMBOL_YYEMPTY;
  return yycount;
}




/* The kind of the lookahead of this context.  */
static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static yysymbol_kind_t
yypcontext_token (const yypcontext_t *yyctx)
{
  return yyctx->yytoken;
}

/* The location of the lookahead of this context.  */
static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx) YY_ATTRIBUTE_UNUSED;

static YYLTYPE *
yypcontext_location (const yypcontext_t *yyctx)
{
  return yyctx->yylloc;
}

/* User defined function to report a syntax error.  */
static int
yyreport_syntax_error (const yypcontext_t *yyctx, struct lang_ctx *ctx);

/*-----------------------------------------------.
| Release the memory associated to this symbol.  |
`-----------------------------------------------*/

static void
yydestruct (const char *yymsg,
            yysymbol_kind_t yykind, YYSTYPE *yyvaluep, YYLTYPE *yylocationp, struct lang_ctx *ctx)
{
  YY_USE (yyvaluep);
  YY_USE (yylocationp);
  YY_USE (ctx);
  if (!yymsg)
    yymsg = "Deleting";
  YY_SYMBOL_PRINT (yymsg, yykind, yyvaluep, yylocationp);

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  YY_USE (yykind);
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}






/*----------.
| yyparse.  |
`----------*/

int
yyparse (struct lang_ctx *ctx)
{
/* Lookahead token kind.  */
int yychar;


/* The semantic value of the lookahead symbol.  */
/* Default value used for initialization, for pacifying older GCCs
   or non-GCC compilers.  */
YY_INITIAL_VALUE (static YYSTYPE yyval_default;)
YYSTYPE yylval YY_INITIAL_VALUE (= yyval_default);

/* Location data for the lookahead symbol.  */
static YYLTYPE yyloc_default
# if defined LANG_YYLTYPE_IS_TRIVIAL && LANG_YYLTYPE_IS_TRIVIAL
  = { 1, 1, 1, 1 }
# endif
;
YYLTYPE yylloc = yyloc_default;

    /* Number of syntax errors so far.  */
    int yynerrs = 0;

    yy_state_fast_t yystate = 0;
    /* Number of tokens to shift before error messages enabled.  */
    int yyerrstatus = 0;

    /* Refer to the stacks through separate pointers, to allow yyoverflow
       to reallocate them elsewhere.  */

    /* Their size.  */
    YYPTRDIFF_T yystacksize = YYINITDEPTH;

    /* The state stack: array, bottom, top.  */
    yy_state_t yyssa[YYINITDEPTH];
    yy_state_t *yyss = yyssa;
    yy_state_t *yyssp = yyss;

    /* The semantic value stack: array, bottom, top.  */
    YYSTYPE yyvsa[YYINITDEPTH];
    YYSTYPE *yyvs = yyvsa;
    YYSTYPE *yyvsp = yyvs;

    /* The location stack: array, bottom, top.  */
    YYLTYPE yylsa[YYINITDEPTH];
    YYLTYPE *yyls = yylsa;
    YYLTYPE *yylsp = yyls;

  int yyn;
  /* The return value of yyparse.  */
  int yyresult;
  /* Lookahead symbol kind.  */
  yysymbol_kind_t yytoken = YYSYMBOL_YYEMPTY;
  /* The variables used to return semantic value and location from the
     action routines.  */
  YYSTYPE yyval;
  YYLTYPE yyloc;

  /* The locations where the error started and ended.  */
  YYLTYPE yyerror_range[3];



#define YYPOPSTACK(N)   (yyvsp -= (N), yyssp -= (N), yylsp -= (N))

  /* The number of symbols on the RHS of the reduced rule.
     Keep to zero when no symbol should be popped.  */
  int yylen = 0;

  YYDPRINTF ((stderr, "Starting parse\n"));

  yychar = LANG_YYEMPTY; /* Cause a token to be read.  */

  yylsp[0] = yylloc;
  goto yysetstate;


/*------------------------------------------------------------.
| yynewstate -- push a new state, which is found in yystate.  |
`------------------------------------------------------------*/
yynewstate:
  /* In all cases, when you get here, the value and location stacks
     have just been pushed.  So pushing a state here evens the stacks.  */
  yyssp++;


/*--------------------------------------------------------------------.
| yysetstate -- set current state (the top of the stack) to yystate.  |
`--------------------------------------------------------------------*/
yysetstate:
  YYDPRINTF ((stderr, "Entering state %d\n", yystate));
  YY_ASSERT (0 <= yystate && yystate < YYNSTATES);
  YY_IGNORE_USELESS_CAST_BEGIN
  *yyssp = YY_CAST (yy_state_t, yystate);
  YY_IGNORE_USELESS_CAST_END
  YY_STACK_PRINT (yyss, yyssp);

  if (yyss + yystacksize - 1 <= yyssp)
#if !defined yyoverflow && !defined YYSTACK_RELOCATE
    YYNOMEM;
#else
    {
      /* Get the current used size of the three stacks, in elements.  */
      YYPTRDIFF_T yysize = yyssp - yyss + 1;

# if defined yyoverflow
      {
        /* Give user a chance to reallocate the stack.  Use copies of
           these so that the &'s don't force the real ones into
           memory.  */
        yy_state_t *yyss1 = yyss;
        YYSTYPE *yyvs1 = yyvs;
        YYLTYPE *yyls1 = yyls;

        /* Each stack pointer address is followed by the size of the
           data in use in that stack, in bytes.  This used to be a
           conditional around just the two extra args, but that might
           be undefined if yyoverflow is a macro.  */
        yyoverflow (YY_("memory exhausted"),
                    &yyss1, yysize * YYSIZEOF (*yyssp),
                    &yyvs1, yysize * YYSIZEOF (*yyvsp),
                    &yyls1, yysize * YYSIZEOF (*yylsp),
                    &yystacksize);
        yyss = yyss1;
        yyvs = yyvs1;
        yyls = yyls1;
      }
# else /* defined YYSTACK_RELOCATE */
      /* Extend the stack our own way.  */
      if (YYMAXDEPTH <= yystacksize)
        YYNOMEM;
      yystacksize *= 2;
      if (YYMAXDEPTH < yystacksize)
        yystacksize = YYMAXDEPTH;

      {
        yy_state_t *yyss1 = yyss;
        union yyalloc *yyptr =
          YY_CAST (union yyalloc *,
                   YYSTACK_ALLOC (YY_CAST (YYSIZE_T, YYSTACK_BYTES (yystacksize))));
        if (! yyptr)
          YYNOMEM;
        YYSTACK_RELOCATE (yyss_alloc, yyss);
        YYSTACK_RELOCATE (yyvs_alloc, yyvs);
        YYSTACK_RELOCATE (yyls_alloc, yyls);
#  undef YYSTACK_RELOCATE
        if (yyss1 != yyssa)
          YYSTACK_FREE (yyss1);
      }
# endif

      yyssp = yyss + yysize - 1;
      yyvsp = yyvs + yysize - 1;
      yylsp = yyls + yysize - 1;

      YY_IGNORE_USELESS_CAST_BEGIN
      YYDPRINTF ((stderr, "Stack size increased to %ld\n",
                  YY_CAST (long, yystacksize)));
      YY_IGNORE_USELESS_CAST_END

      if (yyss + yystacksize - 1 <= yyssp)
        YYABORT;
    }
#endif /* !defined yyoverflow && !defined YYSTACK_RELOCATE */


  if (yystate == YYFINAL)
    YYACCEPT;

  goto yybackup;


/*-----------.
| yybackup.  |
`-----------*/
yybackup:
  /* Do appropriate processing given the current state.  Read a
     lookahead token if we need one and don't already have one.  */

  /* First try to decide what to do without reference to lookahead token.  */
  yyn = yypact[yystate];
  if (yypact_value_is_default (yyn))
    goto yydefault;

  /* Not known => get a lookahead token if don't already have one.  */

  /* YYCHAR is either empty, or end-of-input, or a valid lookahead.  */
  if (yychar == LANG_YYEMPTY)
    {
      YYDPRINTF ((stderr, "Reading a token\n"));
      yychar = yylex (&yylval, &yylloc, ctx);
    }

  if (yychar <= LANG_YYEOF)
    {
      yychar = LANG_YYEOF;
      yytoken = YYSYMBOL_YYEOF;
      YYDPRINTF ((stderr, "Now at end of input.\n"));
    }
  else if (yychar == LANG_YYerror)
    {
      /* The scanner already issued an error message, process directly
         to error recovery.  But do not keep the error token as
         lookahead, it is too special and may lead us to an endless
         loop in error recovery. */
      yychar = LANG_YYUNDEF;
      yytoken = YYSYMBOL_YYerror;
      yyerror_range[1] = yylloc;
      goto yyerrlab1;
    }
  else
    {
      yytoken = YYTRANSLATE (yychar);
      YY_SYMBOL_PRINT ("Next token is", yytoken, &yylval, &yylloc);
    }

  /* If the proper action on seeing token YYTOKEN is to reduce or to
     detect an error, take that action.  */
  yyn += yytoken;
  if (yyn < 0 || YYLAST < yyn || yycheck[yyn] != yytoken)
    goto yydefault;
  yyn = yytable[yyn];
  if (yyn <= 0)
    {
      if (yytable_value_is_error (yyn))
        goto yyerrlab;
      yyn = -yyn;
      goto yyreduce;
    }

  /* Count tokens shifted since error; after three, turn off error
     status.  */
  if (yyerrstatus)
    yyerrstatus--;

  /* Shift the lookahead token.  */
  YY_SYMBOL_PRINT ("Shifting", yytoken, &yylval, &yylloc);
  yystate = yyn;
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END
  *++yylsp = yylloc;

  /* Discard the shifted token.  */
  yychar = LANG_YYEMPTY;
  goto yynewstate;


/*-----------------------------------------------------------.
| yydefault -- do the default action for the current state.  |
`-----------------------------------------------------------*/
yydefault:
  yyn = yydefact[yystate];
  if (yyn == 0)
    goto yyerrlab;
  goto yyreduce;


/*-----------------------------.
| yyreduce -- do a reduction.  |
`-----------------------------*/
yyreduce:
  /* yyn is the number of a rule to reduce with.  */
  yylen = yyr2[yyn];

  /* If YYLEN is nonzero, implement the default value of the action:
     '$$ = $1'.

     Otherwise, the following line sets YYVAL to garbage.
     This behavior is undocumented and Bison
     users should not rely upon it.  Assigning to YYVAL
     unconditionally makes the parser a bit smaller, and it avoids a
     GCC warning that YYVAL may be used uninitialized.  */
  yyval = yyvsp[1-yylen];

  /* Default location. */
  YYLLOC_DEFAULT (yyloc, (yylsp - yylen), yylen);
  yyerror_range[1] = yyloc;
  YY_REDUCE_PRINT (yyn);
  switch (yyn)
    {
  case 2: /* $@1: %empty  */
#line 119 "parser.y"
                            { ctx->job->name = (yyvsp[-1].ident); ctx->job->loc = (yyloc); }
#line 1558 "parser.c"
    break;

  case 10: /* stmts: stmts stmt end  */
#line 129 "parser.y"
                       { ast_job_add(ctx, (yyvsp[-1].stmt)); }
#line 1564 "parser.c"
    break;

  case 12: /* stmts: stmts error end  */
#line 131 "parser.y"
                       { yyerrok; }
#line 1570 "parser.c"
    break;

  case 13: /* stmt: "const" "name" '=' expr  */
#line 136 "parser.y"
        { NEW((yyval.stmt) = ast_const(ctx, (yyvsp[-2].ident), (yyvsp[0].expr), (yyloc))); }
#line 1576 "parser.c"
    break;

  case 14: /* stmt: "data" "name" ':' type "from" expr attrs  */
#line 138 "parser.y"
        { NEW((yyval.stmt) = ast_data(ctx, (yyvsp[-5].ident), (yyvsp[-3].type), (yyvsp[-1].expr), (yyvsp[0].attrs), (yyloc))); }
#line 1582 "parser.c"
    break;

  case 15: /* stmt: "param" "name" ':' type init_opt attrs  */
#line 140 "parser.y"
        { NEW((yyval.stmt) = ast_param(ctx, (yyvsp[-4].ident), (yyvsp[-2].type), (yyvsp[-1].expr), (yyvsp[0].attrs), (yyloc))); }
#line 1588 "parser.c"
    break;

  case 16: /* stmt: "blocks" "name" '=' "name" axis_opt  */
#line 142 "parser.y"
        { NEW((yyval.stmt) = ast_blocks(ctx, (yyvsp[-3].ident), (yyvsp[-1].ident), (yyvsp[0].ident), AST_SPLIT_DEFAULT, NULL, (yyloc))); }
#line 1594 "parser.c"
    break;

  case 17: /* stmt: "blocks" "name" '=' "name" axis_opt "each" expr  */
#line 144 "parser.y"
        { NEW((yyval.stmt) = ast_blocks(ctx, (yyvsp[-5].ident), (yyvsp[-3].ident), (yyvsp[-2].ident), AST_SPLIT_EACH, (yyvsp[0].expr), (yyloc))); }
#line 1600 "parser.c"
    break;

  case 18: /* stmt: "blocks" "name" '=' "name" axis_opt "into" expr  */
#line 146 "parser.y"
        { NEW((yyval.stmt) = ast_blocks(ctx, (yyvsp[-5].ident), (yyvsp[-3].ident), (yyvsp[-2].ident), AST_SPLIT_INTO, (yyvsp[0].expr), (yyloc))); }
#line 1606 "parser.c"
    break;

  case 19: /* stmt: "depend" "name" '(' "name" ')' ',' "name" '(' "name" ')' "when" expr  */
#line 148 "parser.y"
        { NEW((yyval.stmt) = ast_depend_when(ctx, (yyvsp[-10].ident), (yyvsp[-8].ident), (yyvsp[-5].ident), (yyvsp[-3].ident), (yyvsp[0].expr), (yyloc))); }
#line 1612 "parser.c"
    break;

  case 20: /* stmt: "depend" "name" "from" "string"  */
#line 150 "parser.y"
        { NEW((yyval.stmt) = ast_depend_file(ctx, (yyvsp[-2].ident), (yyvsp[0].str), (yyloc))); }
#line 1618 "parser.c"
    break;

  case 21: /* stmt: "priority" "name" '(' "name" ')' '=' expr  */
#line 152 "parser.y"
        { NEW((yyval.stmt) = ast_blockfn(ctx, AST_STMT_PRIORITY, (yyvsp[-5].ident), (yyvsp[-3].ident), (yyvsp[0].expr), (yyloc))); }
#line 1624 "parser.c"
    break;

  case 22: /* stmt: "cost" "name" '(' "name" ')' '=' expr  */
#line 154 "parser.y"
        { NEW((yyval.stmt) = ast_blockfn(ctx, AST_STMT_COST, (yyvsp[-5].ident), (yyvsp[-3].ident), (yyvsp[0].expr), (yyloc))); }
#line 1630 "parser.c"
    break;

  case 23: /* stmt: "schedule" "name" over_opt options_opt  */
#line 156 "parser.y"
        { NEW((yyval.stmt) = ast_schedule(ctx, (yyvsp[-2].ident), (yyvsp[-1].ident), (yyvsp[0].options), (yyloc))); }
#line 1636 "parser.c"
    break;

  case 24: /* stmt: "consistency" cons  */
#line 158 "parser.y"
        { NEW((yyval.stmt) = ast_consistency(ctx, (yyvsp[0].cons), (yyloc))); }
#line 1642 "parser.c"
    break;

  case 25: /* stmt: "update" hook options_opt  */
#line 160 "parser.y"
        { NEW((yyval.stmt) = ast_hook_stmt(ctx, AST_STMT_UPDATE, &(yyvsp[-1].hook), (yyvsp[0].options), NULL, no_ident(), (yyloc))); }
#line 1648 "parser.c"
    break;

  case 26: /* stmt: "objective" hook options_opt every_opt unit_opt  */
#line 162 "parser.y"
        { NEW((yyval.stmt) = ast_hook_stmt(ctx, AST_STMT_OBJECTIVE, &(yyvsp[-3].hook), (yyvsp[-2].options), (yyvsp[-1].expr), (yyvsp[0].ident), (yyloc))); }
#line 1654 "parser.c"
    break;

  case 27: /* stmt: "stop" "when" expr  */
#line 164 "parser.y"
        { NEW((yyval.stmt) = ast_stop(ctx, (yyvsp[0].expr), (yyloc))); }
#line 1660 "parser.c"
    break;

  case 28: /* stmt: "output" "name" "to" "string" attrs  */
#line 166 "parser.y"
        { NEW((yyval.stmt) = ast_output(ctx, (yyvsp[-3].ident), (yyvsp[-1].str), (yylsp[-1]), (yyvsp[0].attrs), (yyloc))); }
#line 1666 "parser.c"
    break;

  case 29: /* stmt: "seed" expr  */
#line 168 "parser.y"
        { NEW((yyval.stmt) = ast_seed(ctx, (yyvsp[0].expr), (yyloc))); }
#line 1672 "parser.c"
    break;

  case 30: /* type: storage_opt elem_opt shape  */
#line 174 "parser.y"
        { NEW((yyval.type) = ast_type(ctx, (yyvsp[-2].ival), (yyvsp[-1].ival), (yyvsp[0].ival), NULL, (yyloc))); }
#line 1678 "parser.c"
    break;

  case 31: /* type: storage_opt elem_opt shape '[' exprs ']'  */
#line 176 "parser.y"
        { NEW((yyval.type) = ast_type(ctx, (yyvsp[-5].ival), (yyvsp[-4].ival), (yyvsp[-3].ival), &(yyvsp[-1].exprs), (yyloc))); }
#line 1684 "parser.c"
    break;

  case 32: /* storage_opt: %empty  */
#line 178 "parser.y"
                     { (yyval.ival) = AST_STORAGE_DEFAULT; }
#line 1690 "parser.c"
    break;

  case 33: /* storage_opt: "dense"  */
#line 178 "parser.y"
                                                           { (yyval.ival) = AST_STORAGE_DENSE; }
#line 1696 "parser.c"
    break;

  case 34: /* storage_opt: "sparse"  */
#line 179 "parser.y"
                     { (yyval.ival) = AST_STORAGE_SPARSE; }
#line 1702 "parser.c"
    break;

  case 35: /* elem_opt: %empty  */
#line 180 "parser.y"
                     { (yyval.ival) = AST_ELEM_DEFAULT; }
#line 1708 "parser.c"
    break;

  case 36: /* elem_opt: "int"  */
#line 180 "parser.y"
                                                      { (yyval.ival) = AST_ELEM_INT; }
#line 1714 "parser.c"
    break;

  case 37: /* elem_opt: "real"  */
#line 181 "parser.y"
                   { (yyval.ival) = AST_ELEM_REAL; }
#line 1720 "parser.c"
    break;

  case 38: /* shape: "vector"  */
#line 182 "parser.y"
                     { (yyval.ival) = AST_SHAPE_VECTOR; }
#line 1726 "parser.c"
    break;

  case 39: /* shape: "matrix"  */
#line 182 "parser.y"
                                                         { (yyval.ival) = AST_SHAPE_MATRIX; }
#line 1732 "parser.c"
    break;

  case 40: /* init_opt: %empty  */
#line 184 "parser.y"
                  { (yyval.expr) = NULL; }
#line 1738 "parser.c"
    break;

  case 41: /* init_opt: '=' expr  */
#line 184 "parser.y"
                                            { (yyval.expr) = (yyvsp[0].expr); }
#line 1744 "parser.c"
    break;

  case 42: /* axis_opt: %empty  */
#line 185 "parser.y"
                  { (yyval.ident) = no_ident(); }
#line 1750 "parser.c"
    break;

  case 44: /* over_opt: %empty  */
#line 186 "parser.y"
                  { (yyval.ident) = no_ident(); }
#line 1756 "parser.c"
    break;

  case 45: /* over_opt: "over" "name"  */
#line 186 "parser.y"
                                                    { (yyval.ident) = (yyvsp[0].ident); }
#line 1762 "parser.c"
    break;

  case 46: /* unit_opt: %empty  */
#line 187 "parser.y"
                  { (yyval.ident) = no_ident(); }
#line 1768 "parser.c"
    break;

  case 48: /* every_opt: %empty  */
#line 188 "parser.y"
                   { (yyval.expr) = NULL; }
#line 1774 "parser.c"
    break;

  case 49: /* every_opt: "every" expr  */
#line 188 "parser.y"
                                               { (yyval.expr) = (yyvsp[0].expr); }
#line 1780 "parser.c"
    break;

  case 50: /* fn_opt: %empty  */
#line 189 "parser.y"
                { (yyval.str) = no_str(); }
#line 1786 "parser.c"
    break;

  case 52: /* attrs: %empty  */
#line 192 "parser.y"
                  { (yyval.attrs) = (struct ast_attrs){NULL, NULL}; }
#line 1792 "parser.c"
    break;

  case 53: /* attrs: attrs attr  */
#line 193 "parser.y"
                  { (yyval.attrs) = ast_attrs_add((yyvsp[-1].attrs), (yyvsp[0].attr)); }
#line 1798 "parser.c"
    break;

  case 54: /* attr: "format" "name"  */
#line 196 "parser.y"
                           { NEW((yyval.attr) = ast_attr_word(ctx, AST_ATTR_FORMAT, (yyvsp[0].ident), (yyloc))); }
#line 1804 "parser.c"
    break;

  case 55: /* attr: "shard" "name"  */
#line 197 "parser.y"
                           { NEW((yyval.attr) = ast_attr_word(ctx, AST_ATTR_SHARD, (yyvsp[0].ident), (yyloc))); }
#line 1810 "parser.c"
    break;

  case 56: /* attr: "shard" "like" "name"  */
#line 198 "parser.y"
                           { NEW((yyval.attr) = ast_attr_word(ctx, AST_ATTR_SHARD_LIKE, (yyvsp[0].ident), (yyloc))); }
#line 1816 "parser.c"
    break;

  case 57: /* attr: "vocab" "string"  */
#line 199 "parser.y"
                           { NEW((yyval.attr) = ast_attr_vocab(ctx, (yyvsp[0].str), (yyloc))); }
#line 1822 "parser.c"
    break;

  case 58: /* attr: "consistency" cons  */
#line 200 "parser.y"
                           { NEW((yyval.attr) = ast_attr_cons(ctx, (yyvsp[0].cons), (yyloc))); }
#line 1828 "parser.c"
    break;

  case 59: /* cons: "ssp" expr  */
#line 205 "parser.y"
                { (yyval.cons) = (struct ast_cons){(yyloc), AST_CONS_SSP, (yyvsp[0].expr)}; }
#line 1834 "parser.c"
    break;

  case 60: /* cons: "bsp"  */
#line 206 "parser.y"
                { (yyval.cons) = (struct ast_cons){(yyloc), AST_CONS_BSP, NULL}; }
#line 1840 "parser.c"
    break;

  case 61: /* cons: "async"  */
#line 207 "parser.y"
                { (yyval.cons) = (struct ast_cons){(yyloc), AST_CONS_ASYNC, NULL}; }
#line 1846 "parser.c"
    break;

  case 62: /* hook: "lua" "string" fn_opt  */
#line 213 "parser.y"
        { (yyval.hook) = (struct ast_hook){AST_HOOK_LUA, (yylsp[-2]), (yyvsp[-1].str), (yyvsp[0].str), (yylsp[-1]), (yylsp[0]), no_ident()}; }
#line 1852 "parser.c"
    break;

  case 63: /* hook: "builtin" "name"  */
#line 215 "parser.y"
        { (yyval.hook) = (struct ast_hook){AST_HOOK_BUILTIN, (yylsp[-1]), no_str(), no_str(), (yylsp[0]), (yylsp[0]), (yyvsp[0].ident)}; }
#line 1858 "parser.c"
    break;

  case 64: /* options_opt: %empty  */
#line 220 "parser.y"
                { (yyval.options) = (struct ast_options){0}; }
#line 1864 "parser.c"
    break;

  case 66: /* options: '{' '}'  */
#line 224 "parser.y"
                           { (yyval.options) = ast_options_close((struct ast_options){0}, (yyloc)); }
#line 1870 "parser.c"
    break;

  case 67: /* options: '{' option_list '}'  */
#line 225 "parser.y"
                           { (yyval.options) = ast_options_close((yyvsp[-1].options), (yyloc)); }
#line 1876 "parser.c"
    break;

  case 68: /* options: '{' option_list sep '}'  */
#line 226 "parser.y"
                              { (yyval.options) = ast_options_close((yyvsp[-2].options), (yyloc)); }
#line 1882 "parser.c"
    break;

  case 69: /* option_list: option  */
#line 229 "parser.y"
                             { (yyval.options) = ast_options_add((struct ast_options){0}, (yyvsp[0].option)); }
#line 1888 "parser.c"
    break;

  case 70: /* option_list: option_list sep option  */
#line 230 "parser.y"
                             { (yyval.options) = ast_options_add((yyvsp[-2].options), (yyvsp[0].option)); }
#line 1894 "parser.c"
    break;

  case 74: /* option: "name" values  */
#line 236 "parser.y"
                            { NEW((yyval.option) = ast_option(ctx, (yyvsp[-1].ident), (yyvsp[0].exprs), (yyloc))); }
#line 1900 "parser.c"
    break;

  case 75: /* option: "name" '=' values  */
#line 237 "parser.y"
                            { NEW((yyval.option) = ast_option(ctx, (yyvsp[-2].ident), (yyvsp[0].exprs), (yyloc))); }
#line 1906 "parser.c"
    break;

  case 76: /* option: error  */
#line 238 "parser.y"
                            { (yyval.option) = NULL; }
#line 1912 "parser.c"
    break;

  case 77: /* values: %empty  */
#line 241 "parser.y"
                    { (yyval.exprs) = (struct ast_exprs){0}; }
#line 1918 "parser.c"
    break;

  case 78: /* values: values value  */
#line 242 "parser.y"
                    { (yyval.exprs) = ast_exprs_add((yyvsp[-1].exprs), (yyvsp[0].expr)); }
#line 1924 "parser.c"
    break;

  case 79: /* value: "number"  */
#line 245 "parser.y"
                    { NEW((yyval.expr) = ast_num(ctx, AST_NUM, (yyvsp[0].num), (yyloc))); }
#line 1930 "parser.c"
    break;

  case 80: /* value: '-' "number"  */
#line 246 "parser.y"
                    { NEW((yyval.expr) = ast_num(ctx, AST_NUM, -(yyvsp[0].num), (yyloc))); }
#line 1936 "parser.c"
    break;

  case 81: /* value: "duration"  */
#line 247 "parser.y"
                    { NEW((yyval.expr) = ast_num(ctx, AST_DURATION, (yyvsp[0].num), (yyloc))); }
#line 1942 "parser.c"
    break;

  case 82: /* value: "string"  */
#line 248 "parser.y"
                    { NEW((yyval.expr) = ast_strlit(ctx, (yyvsp[0].str), (yyloc))); }
#line 1948 "parser.c"
    break;

  case 83: /* value: "true"  */
#line 249 "parser.y"
                    { NEW((yyval.expr) = ast_boollit(ctx, true, (yyloc))); }
#line 1954 "parser.c"
    break;

  case 84: /* value: "false"  */
#line 250 "parser.y"
                    { NEW((yyval.expr) = ast_boollit(ctx, false, (yyloc))); }
#line 1960 "parser.c"
    break;

  case 85: /* value: "name"  */
#line 251 "parser.y"
                    { NEW((yyval.expr) = ast_name(ctx, (yyvsp[0].ident))); }
#line 1966 "parser.c"
    break;

  case 88: /* or_expr: or_expr "or" and_expr  */
#line 259 "parser.y"
                             { NEW((yyval.expr) = ast_binary(ctx, AST_OP_OR, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 1972 "parser.c"
    break;

  case 90: /* and_expr: and_expr "and" not_expr  */
#line 263 "parser.y"
                             { NEW((yyval.expr) = ast_binary(ctx, AST_OP_AND, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 1978 "parser.c"
    break;

  case 92: /* not_expr: "not" not_expr  */
#line 267 "parser.y"
                             { NEW((yyval.expr) = ast_unary(ctx, AST_OP_NOT, (yyvsp[0].expr), (yyloc))); }
#line 1984 "parser.c"
    break;

  case 94: /* cmp_expr: add_expr cmp_op add_expr  */
#line 271 "parser.y"
                               { NEW((yyval.expr) = ast_binary(ctx, (enum ast_op)(yyvsp[-1].ival), (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 1990 "parser.c"
    break;

  case 95: /* cmp_op: "=="  */
#line 274 "parser.y"
         { (yyval.ival) = AST_OP_EQ; }
#line 1996 "parser.c"
    break;

  case 96: /* cmp_op: "!="  */
#line 274 "parser.y"
                                  { (yyval.ival) = AST_OP_NE; }
#line 2002 "parser.c"
    break;

  case 97: /* cmp_op: '<'  */
#line 274 "parser.y"
                                                            { (yyval.ival) = AST_OP_LT; }
#line 2008 "parser.c"
    break;

  case 98: /* cmp_op: "<="  */
#line 275 "parser.y"
         { (yyval.ival) = AST_OP_LE; }
#line 2014 "parser.c"
    break;

  case 99: /* cmp_op: '>'  */
#line 275 "parser.y"
                                   { (yyval.ival) = AST_OP_GT; }
#line 2020 "parser.c"
    break;

  case 100: /* cmp_op: ">="  */
#line 275 "parser.y"
                                                            { (yyval.ival) = AST_OP_GE; }
#line 2026 "parser.c"
    break;

  case 102: /* add_expr: add_expr '+' mul_expr  */
#line 279 "parser.y"
                             { NEW((yyval.expr) = ast_binary(ctx, AST_OP_ADD, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 2032 "parser.c"
    break;

  case 103: /* add_expr: add_expr '-' mul_expr  */
#line 280 "parser.y"
                             { NEW((yyval.expr) = ast_binary(ctx, AST_OP_SUB, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 2038 "parser.c"
    break;

  case 105: /* mul_expr: mul_expr '*' unary  */
#line 284 "parser.y"
                             { NEW((yyval.expr) = ast_binary(ctx, AST_OP_MUL, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 2044 "parser.c"
    break;

  case 106: /* mul_expr: mul_expr '/' unary  */
#line 285 "parser.y"
                             { NEW((yyval.expr) = ast_binary(ctx, AST_OP_DIV, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 2050 "parser.c"
    break;

  case 107: /* mul_expr: mul_expr '%' unary  */
#line 286 "parser.y"
                             { NEW((yyval.expr) = ast_binary(ctx, AST_OP_MOD, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 2056 "parser.c"
    break;

  case 109: /* unary: '-' unary  */
#line 290 "parser.y"
                             { NEW((yyval.expr) = ast_unary(ctx, AST_OP_NEG, (yyvsp[0].expr), (yyloc))); }
#line 2062 "parser.c"
    break;

  case 111: /* pow: postfix '^' unary  */
#line 294 "parser.y"
                             { NEW((yyval.expr) = ast_binary(ctx, AST_OP_POW, (yyvsp[-2].expr), (yyvsp[0].expr), (yyloc))); }
#line 2068 "parser.c"
    break;

  case 113: /* postfix: postfix '[' exprs ']'  */
#line 298 "parser.y"
                             { NEW((yyval.expr) = ast_index(ctx, (yyvsp[-3].expr), (yyvsp[-1].exprs), (yyloc))); }
#line 2074 "parser.c"
    break;

  case 114: /* primary: "number"  */
#line 301 "parser.y"
                             { NEW((yyval.expr) = ast_num(ctx, AST_NUM, (yyvsp[0].num), (yyloc))); }
#line 2080 "parser.c"
    break;

  case 115: /* primary: "duration"  */
#line 302 "parser.y"
                             { NEW((yyval.expr) = ast_num(ctx, AST_DURATION, (yyvsp[0].num), (yyloc))); }
#line 2086 "parser.c"
    break;

  case 116: /* primary: "string"  */
#line 303 "parser.y"
                             { NEW((yyval.expr) = ast_strlit(ctx, (yyvsp[0].str), (yyloc))); }
#line 2092 "parser.c"
    break;

  case 117: /* primary: "true"  */
#line 304 "parser.y"
                             { NEW((yyval.expr) = ast_boollit(ctx, true, (yyloc))); }
#line 2098 "parser.c"
    break;

  case 118: /* primary: "false"  */
#line 305 "parser.y"
                             { NEW((yyval.expr) = ast_boollit(ctx, false, (yyloc))); }
#line 2104 "parser.c"
    break;

  case 119: /* primary: "name"  */
#line 306 "parser.y"
                             { NEW((yyval.expr) = ast_name(ctx, (yyvsp[0].ident))); }
#line 2110 "parser.c"
    break;

  case 120: /* primary: "objective"  */
#line 307 "parser.y"
                             { NEW((yyval.expr) = ast_name(ctx, (struct ast_ident){"objective", (yylsp[0])})); }
#line 2116 "parser.c"
    break;

  case 121: /* primary: "name" '(' args_opt ')'  */
#line 308 "parser.y"
                             { NEW((yyval.expr) = ast_call(ctx, (yyvsp[-3].ident), (yyvsp[-1].exprs), (yyloc))); }
#line 2122 "parser.c"
    break;

  case 122: /* primary: '(' expr ')'  */
#line 309 "parser.y"
                             { (yyval.expr) = (yyvsp[-1].expr); }
#line 2128 "parser.c"
    break;

  case 123: /* args_opt: %empty  */
#line 311 "parser.y"
                  { (yyval.exprs) = (struct ast_exprs){0}; }
#line 2134 "parser.c"
    break;

  case 125: /* exprs: expr  */
#line 313 "parser.y"
                             { (yyval.exprs) = ast_exprs_add((struct ast_exprs){0}, (yyvsp[0].expr)); }
#line 2140 "parser.c"
    break;

  case 126: /* exprs: exprs ',' expr  */
#line 314 "parser.y"
                             { (yyval.exprs) = ast_exprs_add((yyvsp[-2].exprs), (yyvsp[0].expr)); }
#line 2146 "parser.c"
    break;


#line 2150 "parser.c"

      default: break;
    }
  /* User semantic actions sometimes alter yychar, and that requires
     that yytoken be updated with the new translation.  We take the
     approach of translating immediately before every use of yytoken.
     One alternative is translating here after every semantic action,
     but that translation would be missed if the semantic action invokes
     YYABORT, YYACCEPT, or YYERROR immediately after altering yychar or
     if it invokes YYBACKUP.  In the case of YYABORT or YYACCEPT, an
     incorrect destructor might then be invoked immediately.  In the
     case of YYERROR or YYBACKUP, subsequent parser actions might lead
     to an incorrect destructor call or verbose syntax error message
     before the lookahead is translated.  */
  YY_SYMBOL_PRINT ("-> $$ =", YY_CAST (yysymbol_kind_t, yyr1[yyn]), &yyval, &yyloc);

  YYPOPSTACK (yylen);
  yylen = 0;

  *++yyvsp = yyval;
  *++yylsp = yyloc;

  /* Now 'shift' the result of the reduction.  Determine what state
     that goes to, based on the state we popped back to and the rule
     number reduced by.  */
  {
    const int yylhs = yyr1[yyn] - YYNTOKENS;
    const int yyi = yypgoto[yylhs] + *yyssp;
    yystate = (0 <= yyi && yyi <= YYLAST && yycheck[yyi] == *yyssp
               ? yytable[yyi]
               : yydefgoto[yylhs]);
  }

  goto yynewstate;


/*--------------------------------------.
| yyerrlab -- here on detecting error.  |
`--------------------------------------*/
yyerrlab:
  /* Make sure we have latest lookahead translation.  See comments at
     user semantic actions for why this is necessary.  */
  yytoken = yychar == LANG_YYEMPTY ? YYSYMBOL_YYEMPTY : YYTRANSLATE (yychar);
  /* If not already recovering from an error, report this error.  */
  if (!yyerrstatus)
    {
      ++yynerrs;
      {
        yypcontext_t yyctx
          = {yyssp, yytoken, &yylloc};
        if (yyreport_syntax_error (&yyctx, ctx) == 2)
          YYNOMEM;
      }
    }

  yyerror_range[1] = yylloc;
  if (yyerrstatus == 3)
    {
      /* If just tried and failed to reuse lookahead token after an
         error, discard it.  */

      if (yychar <= LANG_YYEOF)
        {
          /* Return failure if at end of input.  */
          if (yychar == LANG_YYEOF)
            YYABORT;
        }
      else
        {
          yydestruct ("Error: discarding",
                      yytoken, &yylval, &yylloc, ctx);
          yychar = LANG_YYEMPTY;
        }
    }

  /* Else will try to reuse lookahead token after shifting the error
     token.  */
  goto yyerrlab1;


/*---------------------------------------------------.
| yyerrorlab -- error raised explicitly by YYERROR.  |
`---------------------------------------------------*/
yyerrorlab:
  /* Pacify compilers when the user code never invokes YYERROR and the
     label yyerrorlab therefore never appears in user code.  */
  if (0)
    YYERROR;
  ++yynerrs;

  /* Do not reclaim the symbols of the rule whose action triggered
     this YYERROR.  */
  YYPOPSTACK (yylen);
  yylen = 0;
  YY_STACK_PRINT (yyss, yyssp);
  yystate = *yyssp;
  goto yyerrlab1;


/*-------------------------------------------------------------.
| yyerrlab1 -- common code for both syntax error and YYERROR.  |
`-------------------------------------------------------------*/
yyerrlab1:
  yyerrstatus = 3;      /* Each real token shifted decrements this.  */

  /* Pop stack until we find a state that shifts the error token.  */
  for (;;)
    {
      yyn = yypact[yystate];
      if (!yypact_value_is_default (yyn))
        {
          yyn += YYSYMBOL_YYerror;
          if (0 <= yyn && yyn <= YYLAST && yycheck[yyn] == YYSYMBOL_YYerror)
            {
              yyn = yytable[yyn];
              if (0 < yyn)
                break;
            }
        }

      /* Pop the current state because it cannot handle the error token.  */
      if (yyssp == yyss)
        YYABORT;

      yyerror_range[1] = *yylsp;
      yydestruct ("Error: popping",
                  YY_ACCESSING_SYMBOL (yystate), yyvsp, yylsp, ctx);
      YYPOPSTACK (1);
      yystate = *yyssp;
      YY_STACK_PRINT (yyss, yyssp);
    }

  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  *++yyvsp = yylval;
  YY_IGNORE_MAYBE_UNINITIALIZED_END

  yyerror_range[2] = yylloc;
  ++yylsp;
  YYLLOC_DEFAULT (*yylsp, yyerror_range, 2);

  /* Shift the error token.  */
  YY_SYMBOL_PRINT ("Shifting", YY_ACCESSING_SYMBOL (yyn), yyvsp, yylsp);

  yystate = yyn;
  goto yynewstate;


/*-------------------------------------.
| yyacceptlab -- YYACCEPT comes here.  |
`-------------------------------------*/
yyacceptlab:
  yyresult = 0;
  goto yyreturnlab;


/*-----------------------------------.
| yyabortlab -- YYABORT comes here.  |
`-----------------------------------*/
yyabortlab:
  yyresult = 1;
  goto yyreturnlab;


/*-----------------------------------------------------------.
| yyexhaustedlab -- YYNOMEM (memory exhaustion) comes here.  |
`-----------------------------------------------------------*/
yyexhaustedlab:
  yyerror (&yylloc, ctx, YY_("memory exhausted"));
  yyresult = 2;
  goto yyreturnlab;


/*----------------------------------------------------------.
| yyreturnlab -- parsing is finished, clean up and return.  |
`----------------------------------------------------------*/
yyreturnlab:
  if (yychar != LANG_YYEMPTY)
    {
      /* Make sure we have latest lookahead translation.  See comments at
         user semantic actions for why this is necessary.  */
      yytoken = YYTRANSLATE (yychar);
      yydestruct ("Cleanup: discarding lookahead",
                  yytoken, &yylval, &yylloc, ctx);
    }
  /* Do not reclaim the symbols of the rule whose action triggered
     this YYABORT or YYACCEPT.  */
  YYPOPSTACK (yylen);
  YY_STACK_PRINT (yyss, yyssp);
  while (yyssp != yyss)
    {
      yydestruct ("Cleanup: popping",
                  YY_ACCESSING_SYMBOL (+*yyssp), yyvsp, yylsp, ctx);
      YYPOPSTACK (1);
    }
#ifndef yyoverflow
  if (yyss != yyssa)
    YYSTACK_FREE (yyss);
#endif

  return yyresult;
}

#line 317 "parser.y"


void lang_error(struct lang_ctx *c, struct ptm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_addv(c->diags, PTM_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
}

static void lang_yyerror(LANG_YYLTYPE *loc, struct lang_ctx *ctx, const char *msg)
{
    if (ctx->fatal)
        return;
    if (strcmp(msg, "memory exhausted") == 0) {
        /* The parser's stack: only absurd nesting gets here. */
        lang_error(ctx, *loc, "statement nested too deeply");
        ctx->fatal = true;
        return;
    }
    lang_error(ctx, *loc, "%s", msg);
}

/* How a token is named in "expected ..." and "unexpected ...": keywords and
 * punctuation in quotes, classes by name. */
static void symbol_text(yysymbol_kind_t sym, char *buf, size_t len)
{
    const char *name = yysymbol_name(sym);
    if (sym == YYSYMBOL_YYEOF)
        snprintf(buf, len, "end of file");
    else if (sym == YYSYMBOL_IDENT || sym == YYSYMBOL_NUMBER || sym == YYSYMBOL_DURATION ||
             sym == YYSYMBOL_STRING || sym == YYSYMBOL_NL)
        snprintf(buf, len, "%s", name);
    else if (name[0] == '"') /* "job" */
        snprintf(buf, len, "'%.*s'", (int)strlen(name) - 2, name + 1);
    else if (name[0] == '\'') /* '(' */
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "'%s'", name);
}

static bool expects(const yysymbol_kind_t *exp, int n, yysymbol_kind_t sym)
{
    for (int i = 0; i < n; i++)
        if (exp[i] == sym)
            return true;
    return false;
}

static int yyreport_syntax_error(const yypcontext_t *p, struct lang_ctx *ctx)
{
    if (ctx->fatal || ctx->oom)
        return 0;
    enum { MAXEXP = 48 };
    yysymbol_kind_t exp[MAXEXP];
    int nexp = yypcontext_expected_tokens(p, exp, MAXEXP);
    if (nexp < 0)
        nexp = 0;
    yysymbol_kind_t tok = yypcontext_token(p);
    const LANG_YYLTYPE *loc = yypcontext_location(p);
    const char *text = ctx->src->text + loc->begin;
    int tlen = (int)(loc->end - loc->begin);

    /* A name where a statement should start: a misspelt keyword? */
    if (tok == YYSYMBOL_IDENT && expects(exp, nexp, YYSYMBOL_CONST)) {
        const char *s = diag_suggest(text, (size_t)tlen, lang_stmt_words, lang_nstmt_words);
        if (s)
            lang_error(ctx, *loc, "unknown statement '%.*s' (did you mean '%s'?)", tlen, text, s);
        else
            lang_error(ctx, *loc, "unknown statement '%.*s'", tlen, text);
        return 0;
    }

    char what[96];
    if (tok == YYSYMBOL_IDENT || tok == YYSYMBOL_NUMBER || tok == YYSYMBOL_DURATION)
        snprintf(what, sizeof(what), "%s '%.*s'", yysymbol_name(tok), tlen > 40 ? 40 : tlen,
                 text);
    else
        symbol_text(tok, what, sizeof(what));

    /* A keyword where a name belongs. */
    if (expects(exp, nexp, YYSYMBOL_IDENT) && tok != YYSYMBOL_IDENT && tlen > 0 &&
        lang_keyword(text, (size_t)tlen) && !lang_is_stmt_keyword(lang_keyword(text, (size_t)tlen))) {
        lang_error(ctx, *loc, "unexpected %s, expected a name ('%.*s' is a reserved word)", what,
                   tlen, text);
        return 0;
    }

    /* Collapse the tokens that start an expression into one word. */
    bool expr = expects(exp, nexp, YYSYMBOL_NUMBER) && expects(exp, nexp, YYTRANSLATE('-')) &&
                expects(exp, nexp, YYSYMBOL_NOT);
    char list[256];
    size_t used = 0;
    int shown = 0, total = 0;
    const char *items[8];
    char bufs[8][32];
    if (expr)
        items[shown++] = "expression";
    for (int i = 0; i < nexp; i++) {
        yysymbol_kind_t s = exp[i];
        if (expr && (s == YYSYMBOL_NUMBER || s == YYSYMBOL_DURATION || s == YYSYMBOL_STRING ||
                     s == YYSYMBOL_IDENT || s == YYSYMBOL_TRUE || s == YYSYMBOL_FALSE ||
                     s == YYSYMBOL_NOT || s == YYSYMBOL_OBJECTIVE || s == YYTRANSLATE('-') ||
                     s == YYTRANSLATE('(')))
            continue;
        if (s == YYSYMBOL_YYerror)
            continue;
        total++;
        if (shown < 5) {
            symbol_text(s, bufs[shown], sizeof(bufs[shown]));
            items[shown] = bufs[shown];
            shown++;
        }
    }
    total += expr;
    list[0] = '\0';
    if (shown > 0 && total <= 5) {
        used = (size_t)snprintf(list, sizeof(list), ", expected ");
        for (int i = 0; i < shown; i++)
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                     i == 0 ? "" : i == shown - 1 ? " or " : ", ", items[i]);
    }
    lang_error(ctx, *loc, "unexpected %s%s", what, list);

    /* The bracket this error leaves open. */
    if (ctx->nbrackets > 0) {
        const struct lang_bracket *b = &ctx->brackets[ctx->nbrackets - 1];
        yysymbol_kind_t closer = b->tok == '(' ? YYTRANSLATE(')')
                               : b->tok == '[' ? YYTRANSLATE(']') : YYTRANSLATE('}');
        if (expects(exp, nexp, closer) && !(tok == YYSYMBOL_NL && b->tok != '{'))
            diag_add(ctx->diags, PTM_SEV_NOTE, b->loc, "to match this '%c'", b->tok);
    }
    return 0;
}

int ptm_parse(struct ptm_source *src, struct arena *arena, struct ptm_diags *diags,
              struct ast_job **out)
{
    struct lang_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.src = src;
    ctx.arena = arena;
    ctx.diags = diags;
    ctx.last = NL; /* nothing to end yet */
    *out = NULL;
    unsigned errors_before = diags->nerrors;

    ctx.job = arena_alloc(arena, sizeof(*ctx.job));
    if (!ctx.job)
        return PTM_ENOMEM;
    jmp_buf fail;
    ctx.flex_fail = &fail;
    if (setjmp(fail)) {
        lang_scan_end(&ctx);
        return PTM_ENOMEM;
    }
    if (lang_scan_begin(&ctx) != 0)
        return PTM_ENOMEM;
    int rc = lang_yyparse(&ctx);
    lang_scan_end(&ctx);
    if (rc == 2 || ctx.oom)
        return PTM_ENOMEM;
    if (rc != 0 || diags->nerrors > errors_before || diags->oom)
        return PTM_ESYNTAX;
    *out = ctx.job;
    return 0;
}
