"""The message catalog: every word rlmon shows, in English and Chinese, grouped by where it appears.

Each message is a key with one template per language (``str.format`` fields). :func:`t` picks the visitor's
language and fills the fields; a missing language is a bug caught by the tests, a missing key raises.
Numbers are written by :mod:`rlmon.text.numbers`, punctuation between pieces of text by :mod:`rlmon.text.lang`.

>>> t("status_running", "zh")
'运行中'
>>> t("exp_progress", "en", done=21, total=150)
'21/150 steps'
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = [
    "MESSAGES",
    "UNKNOWN",
    "UNKNOWN_TRACK",
    "SettingWords",
    "is_unknown_track",
    "metric_title",
    "setting_display",
    "setting_label",
    "t",
    "track_name",
    "unknown_track",
]

MESSAGES: dict[str, dict[str, str]] = {
    # --- frame and sidebar: the title, the navigation, the sidebar's controls, the live badge ---
    "app_title": {"en": "rlmon", "zh": "rlmon"},
    "app_tagline": {"en": "verl RL training monitor", "zh": "verl 强化学习训练监控"},
    "nav_overview": {"en": "Overview", "zh": "总览"},
    "nav_experiment": {"en": "Experiment", "zh": "实验"},
    "sidebar_track": {"en": "Track", "zh": "赛道"},
    "sidebar_all_tracks": {"en": "All tracks", "zh": "全部赛道"},
    "track_unknown": {"en": "unknown model", "zh": "未知模型"},
    "algorithm_unknown": {"en": "unknown algorithm", "zh": "未知算法"},
    "sidebar_experiments": {"en": "Experiments", "zh": "实验"},
    "sidebar_experiments_help": {
        "en": "The experiments compared on the overview. The selection is kept in the page address.",
        "zh": "总览页中对比的实验。所选实验保存在页面地址中。",
    },
    "sidebar_language": {"en": "Language", "zh": "语言"},
    "sidebar_live": {"en": "Live refresh", "zh": "实时刷新"},
    "sidebar_live_help": {
        "en": "Re-read the logs every few seconds; only new bytes are parsed.",
        "zh": "每隔几秒重新读取日志，只解析新增内容。",
    },
    "sidebar_refresh_s": {"en": "Every (seconds)", "zh": "间隔（秒）"},
    "sidebar_roots": {"en": "Log roots", "zh": "日志根目录"},
    "sidebar_demo": {
        "en": "Demo data (no log root configured; start with `-- --log-root DIR`)",
        "zh": "演示数据（未配置日志根目录；用 `-- --log-root DIR` 启动）",
    },
    "live_badge": {"en": "live · every {seconds}s", "zh": "实时 · 每 {seconds} 秒"},
    "paused_badge": {"en": "live refresh off", "zh": "实时刷新已关闭"},
    "updated_at": {"en": "updated {time}", "zh": "更新于 {time}"},
    "nav_samples": {"en": "Samples", "zh": "样例"},
    # --- sign-in: the sign-in page, the refusal, a sign-in set up wrong or its provider down, the sidebar's block ---
    "signin_title": {"en": "Sign in", "zh": "登录"},
    "signin_intro": {
        "en": "This rlmon server shows the team's training runs to signed-in members only.",
        "zh": "此 rlmon 服务器只向已登录的团队成员展示训练运行。",
    },
    "signin_button": {"en": "Sign in", "zh": "登录"},
    "signin_provider_note": {
        "en": "You sign in at {provider}, then come back here.",
        "zh": "你将在 {provider} 登录，然后回到这里。",
    },
    "signin_refused_title": {"en": "Not on this server's list", "zh": "不在此服务器的名单上"},
    "signin_refused_body": {
        "en": "You are signed in as **{who}**, an address this rlmon server does not let in.",
        "zh": "你以 **{who}** 登录，此 rlmon 服务器不允许该地址进入。",
    },
    "signin_refused_no_email": {
        "en": "Your sign-in gave rlmon no verified email address, and this server lets in listed addresses only.",
        "zh": "你的登录没有向 rlmon 提供经过验证的电子邮件地址，而此服务器只允许名单上的地址进入。",
    },
    "signin_refused_next": {
        "en": "Sign out and sign in with another account, or ask whoever runs rlmon to add you.",
        "zh": "请退出登录后换一个账号登录，或请 rlmon 的管理员把你加入名单。",
    },
    "signin_sign_out": {"en": "Sign out", "zh": "退出登录"},
    "signin_signed_in_as": {"en": "Signed in as {who}", "zh": "已登录：{who}"},
    "signin_setup_wrong": {
        "en": "Sign-in is set up wrong, so rlmon shows nothing: {reason}. Whoever runs rlmon can fix the `[auth]` "
        "section of `.streamlit/secrets.toml` (docs/serving.md, Sign-in).",
        "zh": "登录配置有误，因此 rlmon 不显示任何内容：{reason}。rlmon 的管理员可修改 `.streamlit/secrets.toml` 的 "
        "`[auth]` 部分（见 docs/serving.md 的 Sign-in 一节）。",
    },
    "signin_provider_down": {
        "en": "The sign-in provider {provider} does not answer ({reason}), so no one can sign in now. Try again in a "
        "few minutes; if it lasts, tell whoever runs rlmon.",
        "zh": "登录服务 {provider} 没有响应（{reason}），暂时无法登录。请几分钟后再试；"
        "若持续如此，请告知 rlmon 的管理员。",
    },
    "signin_provider_down_signed_in": {
        "en": "The sign-in provider {provider} does not answer ({reason}). You stay signed in, but no one can sign in "
        "until it answers again: if you sign out now, you cannot come back before then.",
        "zh": "登录服务 {provider} 没有响应（{reason}）。你仍保持登录，但在它恢复之前任何人都无法登录："
        "如果现在退出登录，在此之前将无法再次进入。",
    },
    "signin_reason_named": {
        "en": "rlmon signs in with one provider, whose `client_id`, `client_secret` and `server_metadata_url` go in "
        "`[auth]` itself; it does not use Streamlit's named providers ({names}): move that provider's keys into "
        "`[auth]`",
        "zh": "rlmon 只使用一个登录服务，其 `client_id`、`client_secret` 和 `server_metadata_url` 直接写在 "
        "`[auth]` 中；rlmon 不使用 Streamlit 的具名登录服务（{names}）：请把该服务的键移到 `[auth]` 中",
    },
    "signin_reason_no_authlib": {
        "en": 'Authlib, which Streamlit\'s sign-in needs, is not installed (`pip install "rlmon[auth]"`)',
        "zh": '未安装 Streamlit 登录所需的 Authlib（`pip install "rlmon[auth]"`）',
    },
    "signin_reason_unreadable": {
        "en": "the secrets file cannot be read (not valid TOML?)",
        "zh": "无法读取 secrets 文件（TOML 格式有误？）",
    },
    "signin_reason_not_a_section": {"en": "`auth` is not a section", "zh": "`auth` 不是一个节"},
    "signin_reason_missing": {"en": "`[auth]` lacks {keys}", "zh": "`[auth]` 缺少 {keys}"},
    "signin_reason_redirect": {
        "en": "`redirect_uri` must be the app's own address (http:// or https://) ending in `/oauth2callback`",
        "zh": "`redirect_uri` 必须是应用自身的地址（http:// 或 https://），并以 `/oauth2callback` 结尾",
    },
    "signin_reason_short_secret": {
        "en": "`cookie_secret` must have at least {count} characters (it signs the sign-in cookie)",
        "zh": "`cookie_secret` 至少需要 {count} 个字符（它用于签名登录 cookie）",
    },
    "signin_reason_metadata_url": {
        "en": "`server_metadata_url` must be an http:// or https:// address",
        "zh": "`server_metadata_url` 必须是 http:// 或 https:// 地址",
    },
    # --- statuses: of an experiment, of a signal, of a log file ---
    "status_finished": {"en": "finished", "zh": "已完成"},
    "status_running": {"en": "running", "zh": "运行中"},
    "status_stalled": {"en": "stalled", "zh": "停滞"},
    "status_crashed": {"en": "crashed", "zh": "崩溃"},
    "status_not started": {"en": "not started", "zh": "未开始"},
    "role_start-up only": {"en": "start-up only", "zh": "仅启动输出"},
    "role_resumed": {"en": "resumed", "zh": "续训"},
    "role_crashed attempt": {"en": "crashed attempt", "zh": "崩溃的尝试"},
    "role_steps": {"en": "training steps", "zh": "训练步"},
    "role_not RL": {"en": "not an RL log", "zh": "非 RL 日志"},
    "role_unreadable": {"en": "unreadable", "zh": "无法读取"},
    "severity_info": {"en": "info", "zh": "提示"},
    "severity_warning": {"en": "warning", "zh": "警告"},
    "severity_critical": {"en": "critical", "zh": "严重"},
    # --- errors and notices: settings, roots, links, unreadable or hidden experiments, object storage, the cache ---
    "error_settings": {
        "en": "rlmon cannot start with these settings: {reason}",
        "zh": "rlmon 无法以这些设置启动：{reason}",
    },
    "error_root_missing": {
        "en": "Log root {path} cannot be used: {reason}. Check the path given with `--log-root` / RLMON_LOG_ROOT.",
        "zh": "日志根目录 {path} 无法使用：{reason}。请检查 `--log-root` / RLMON_LOG_ROOT 给出的路径。",
    },
    "error_demo_unwritable": {
        "en": "The demo logs cannot be written in the cache folder {path}: {reason}. Give rlmon a writable cache "
        "folder (`--cache-dir` / RLMON_CACHE_DIR), or point it at your logs with `--log-root DIR`.",
        "zh": "无法在缓存目录 {path} 写入演示日志：{reason}。请给 rlmon 一个可写的缓存目录"
        "（`--cache-dir` / RLMON_CACHE_DIR），或用 `--log-root DIR` 指向你的日志。",
    },
    "notice_cache_unwritable": {
        "en": "The cache cannot be written ({problem}). Every number shown is right; a restart parses the logs "
        "again. rlmon tries again in a minute.",
        "zh": "缓存无法写入（{problem}）。显示的数字都是正确的；重启后会重新解析日志。rlmon 一分钟后重试。",
    },
    "notice_cache_unusable": {
        "en": "The cache folder {folder} cannot be used ({reason}): logs are parsed in memory, again after each "
        "restart, and colours are not kept. Every number shown is right. Set --cache-dir / RLMON_CACHE_DIR to a "
        "folder rlmon can write.",
        "zh": "缓存文件夹 {folder} 无法使用（{reason}）：日志在内存中解析，每次重启后都会重新解析，颜色也不会保留。"
        "显示的数字都是正确的。请将 --cache-dir / RLMON_CACHE_DIR 设为 rlmon 可写入的文件夹。",
    },
    "empty_root": {
        "en": "No verl logs under {roots}. Point rlmon at a folder of training logs with `--log-root DIR`; "
        "every folder holding verl `*.log` or `*.jsonl` files is one experiment.",
        "zh": "{roots} 下没有 verl 日志。请用 `--log-root DIR` 指向训练日志目录；"
        "每个包含 verl `*.log` 或 `*.jsonl` 文件的文件夹即一个实验。",
    },
    "no_selection": {
        "en": "No experiment selected. Pick experiments in the sidebar.",
        "zh": "未选择实验。请在侧边栏中选择实验。",
    },
    "unknown_experiments": {
        "en": "The link names experiments that are not under the configured log roots and were left out: {ids}",
        "zh": "链接中的以下实验不在已配置的日志根目录下，已忽略：{ids}",
    },
    "unknown_experiment": {
        "en": "There is no experiment {id} under the configured log roots. It may have been moved or renamed; "
        "pick one in the navigation.",
        "zh": "已配置的日志根目录下没有实验 {id}。它可能已被移动或重命名；请在导航中选择其他实验。",
    },
    "no_experiment_given": {
        "en": "No experiment given. Pick one in the navigation.",
        "zh": "未指定实验。请在导航中选择一个实验。",
    },
    "experiment_unreadable": {
        "en": "Experiment {id} cannot be read: {reason}",
        "zh": "实验 {id} 无法读取：{reason}",
    },
    "unexpected_error": {
        "en": "Something went wrong while drawing this part of the page ({kind}). The rest of the page still works; "
        "the server log has the details.",
        "zh": "绘制页面此部分时出错（{kind}）。页面其余部分不受影响；详情见服务器日志。",
    },
    "log_notes": {"en": "Notes on the logs ({count})", "zh": "日志提示（{count}）"},
    "no_data": {"en": "no data", "zh": "无数据"},
    "no_steps_yet": {"en": "No training step logged yet.", "zh": "尚未记录任何训练步。"},
    "exp_unreadable": {
        "en": "{path} could not be read ({reason}), so this experiment is left out; the other experiments are "
        "shown. The server log has the details.",
        "zh": "无法读取 {path}（{reason}），此实验未显示；其他实验照常显示。详情见服务器日志。",
    },
    "hidden_experiment": {
        "en": "{id} is hidden: rlmon.toml marks it `hidden = true`, so it is not listed. To list it again, set "
        "`hidden = false` in its table {table} in {toml}.",
        "zh": "{id} 已隐藏：rlmon.toml 将其设为 `hidden = true`，因此不在列表中。如需重新列出，请在 {toml} 中"
        "它的 {table} 表里设置 `hidden = false`。",
    },
    "unknown_metrics": {
        "en": "The link asks for metrics that the selected experiments do not log; they are not drawn: {metrics}",
        "zh": "链接中的以下指标在所选实验中没有记录，未绘制：{metrics}",
    },
    "object_missing_bucket": {"en": "the bucket does not exist", "zh": "存储桶不存在"},
    "object_denied": {
        "en": "access denied (check the credentials: AWS_* variables or ~/.aws)",
        "zh": "访问被拒绝（请检查凭证：AWS_* 环境变量或 ~/.aws）",
    },
    "object_unreachable": {"en": "endpoint not reachable", "zh": "无法连接存储端点"},
    "object_syncing": {"en": "Reading the logs from object storage…", "zh": "正在从对象存储读取日志…"},
    "reading_root": {
        "en": "Reading the logs: {read} of {total} experiments read. The others are listed as soon as they are read.",
        "zh": "正在读取日志：已读取 {total} 个实验中的 {read} 个。其余实验读取后即会列出。",
    },
    "object_stale": {
        "en": "{url}: {reason} since {since}; showing the data from {synced}.",
        "zh": "{url}：自 {since} 起{reason}；显示的是 {synced} 时的数据。",
    },
    # --- overview: header, summary and signals, the experiments table, what changed, download ---
    "overview_title": {"en": "{tracks}", "zh": "{tracks}"},
    "overview_count": {"en": "{count} experiments", "zh": "{count} 个实验"},
    "progress_group": {"en": "{codes} {status} {progress}", "zh": "{codes} {status} {progress}"},
    "progress_detail": {"en": "{elapsed}, ETA {eta}", "zh": "{elapsed}，预计还需 {eta}"},
    "progress_count": {"en": "{count} {status}", "zh": "{status} {count} 个"},
    "header_tracks": {"en": "{count} tracks", "zh": "{count} 个赛道"},
    "progress_elapsed": {"en": "{elapsed}", "zh": "{elapsed}"},
    "shared_gpus": {"en": "{n} GPUs", "zh": "{n} 卡"},
    "shared_offload_off": {"en": "offload off", "zh": "关闭 offload"},
    "shared_offload_on": {"en": "offload on", "zh": "开启 offload"},
    "shared_thinking": {"en": "thinking", "zh": "思考模式"},
    "shared_non_thinking": {"en": "non-thinking", "zh": "非思考模式"},
    "shared_response": {"en": "{cap} response", "zh": "{cap} 响应"},
    "shared_batch": {"en": "{batch}/step", "zh": "{batch}/步"},
    "summary_title": {"en": "Summary", "zh": "小结"},
    "summary_caption": {
        "en": "Written by rlmon from the logs; it changes as the runs progress.",
        "zh": "由 rlmon 根据日志自动生成，随训练推进而更新。",
    },
    "summary_pending": {
        "en": "The written summary is not available in this version of rlmon.",
        "zh": "此版本的 rlmon 暂不提供文字小结。",
    },
    "signals_title": {"en": "Signals ({count})", "zh": "信号（{count}）"},
    "signals_none": {"en": "No signal worth attention.", "zh": "没有值得关注的信号。"},
    "col_severity": {"en": "severity", "zh": "级别"},
    "col_kind": {"en": "kind", "zh": "类型"},
    "col_step": {"en": "step", "zh": "步"},
    "col_message": {"en": "what", "zh": "内容"},
    "col_rule": {"en": "rule", "zh": "规则"},
    "col_rule_help": {
        "en": "The rule that found the signal. verl's own thresholds name the file of verl's documentation they "
        "come from (github.com/volcengine/verl); the others name the rlmon settings that set them.",
        "zh": "发现该信号的规则。verl 自己的阈值注明出自 verl 文档的哪个文件（github.com/volcengine/verl）；"
        "其余规则注明设定它们的 rlmon 设置。",
    },
    "col_open": {"en": "page", "zh": "页面"},
    "open_link": {"en": "open ›", "zh": "打开 ›"},
    "table_title": {"en": "Experiments", "zh": "实验列表"},
    "col_experiment": {"en": "experiment", "zh": "实验"},
    "col_algorithm": {"en": "algorithm", "zh": "算法"},
    "col_status": {"en": "status", "zh": "状态"},
    "col_progress": {"en": "progress", "zh": "进度"},
    "col_steps": {"en": "steps", "zh": "步数"},
    "col_hours": {"en": "hours", "zh": "耗时"},
    "col_eta": {"en": "ETA", "zh": "预计剩余"},
    "col_repeat_group": {"en": "group", "zh": "组"},
    "col_best_val_only": {"en": "best val", "zh": "最佳验证"},
    "col_members": {"en": "runs", "zh": "运行"},
    "groups_title": {"en": "Repeats", "zh": "重复运行"},
    "groups_caption": {
        "en": "Runs whose settings differ only in seeds, names and paths, one row per group: mean ± standard "
        "deviation over its runs, n = how many have the number. The table below lists every run.",
        "zh": "设置仅在随机种子、名称与路径上不同的运行，每组一行：各次运行的均值 ± 标准差，"
        "n 为有该数值的运行数。下表列出每次运行。",
    },
    "table_groups_caption": {
        "en": "Runs whose settings differ only in seeds, names and paths are one row per group: mean ± standard "
        "deviation over its runs, n = how many have the number. Each group's runs are listed under the table.",
        "zh": "设置仅在随机种子、名称与路径上不同的运行每组占一行：各次运行的均值 ± 标准差，"
        "n 为有该数值的运行数。每组的各次运行列在表格下方。",
    },
    "group_runs": {"en": "{name}: its {n} runs", "zh": "{name}：其 {n} 次运行"},
    "group_figure": {"en": "{mean} ± {std} (n = {n})", "zh": "{mean} ± {std}（n = {n}）"},
    "col_first5": {"en": "first-5 pass", "zh": "首 5 步通过率"},
    "col_last10": {"en": "last-10 pass", "zh": "末 10 步通过率"},
    "col_best_val": {"en": "best val @step", "zh": "最佳验证 @步"},
    "col_last_val": {"en": "last val", "zh": "最新验证"},
    "col_sparkline": {"en": "pass rate", "zh": "通过率"},
    "table_help_names": {
        "en": "Click a row to open the experiment's page.",
        "zh": "点击一行打开该实验的页面。",
    },
    "table_help_names_whole": {
        "en": "Long names are shown by the part that tells the runs apart; whole, with their ids:",
        "zh": "较长的名称只显示能区分各实验的部分；完整名称与 id：",
    },
    "more_names": {"en": "and {count} more", "zh": "另有 {count} 个"},
    "table_help_first5": {
        "en": "Mean pass rate over the first 5 training steps.",
        "zh": "前 5 个训练步的平均通过率。",
    },
    "table_help_last10": {
        "en": "Mean pass rate over the last 10 training steps.",
        "zh": "最后 10 个训练步的平均通过率。",
    },
    "diff_title": {"en": "What changed", "zh": "设置差异"},
    "diff_none": {
        "en": "The selected experiments share every setting rlmon reads.",
        "zh": "所选实验在 rlmon 读取的所有设置上都相同。",
    },
    "diff_single": {
        "en": "Select two or more experiments to compare settings.",
        "zh": "选择两个或以上实验以对比设置。",
    },
    "col_setting": {"en": "setting", "zh": "设置"},
    "col_group": {"en": "group", "zh": "分组"},
    "download_title": {"en": "Download", "zh": "下载"},
    "download_caption": {
        "en": "Per-step table of the selected experiments: logged and derived metrics, plus the smoothed "
        "values of the charted metrics.",
        "zh": "所选实验的逐步数据表：记录的和派生的指标，以及图中指标的平滑值。",
    },
    "download_csv": {"en": "CSV", "zh": "CSV"},
    "download_parquet": {"en": "Parquet", "zh": "Parquet"},
    "col_series": {"en": "series", "zh": "曲线"},
    "col_track": {"en": "track", "zh": "赛道"},
    "col_chart": {"en": "chart", "zh": "图表"},
    "chart_link": {"en": "chart ›", "zh": "图表 ›"},
    "legend_highlight": {"en": "Highlight", "zh": "突出显示"},
    "legend_highlight_help": {
        "en": "Click runs to draw them in full in every chart; the others are dimmed. Click again to undo.",
        "zh": "点击实验使其在所有图表中突出显示，其余实验变淡；再次点击取消。",
    },
    # --- charts: controls, titles, axes, markers, saving a chart ---
    "charts_title": {"en": "Comparison charts", "zh": "对比图表"},
    "control_metrics": {"en": "Charts", "zh": "图表"},
    "control_metrics_help": {
        "en": "Add, remove or reorder charts; type to search every logged and derived metric.",
        "zh": "添加、删除或调整图表顺序；输入文字可搜索所有记录的和派生的指标。",
    },
    "control_filter": {"en": "Filter keys (regex)", "zh": "筛选指标（正则）"},
    "control_filter_help": {
        "en": "A regular expression over metric keys, e.g. `^actor/` or `clip`; narrows the chart choices.",
        "zh": "对指标名使用的正则表达式，例如 `^actor/` 或 `clip`；用于缩小图表候选。",
    },
    "control_filter_bad": {"en": "Not a valid regular expression: {reason}", "zh": "不是有效的正则表达式：{reason}"},
    "control_filter_count": {"en": "{count} keys match", "zh": "匹配 {count} 个指标"},
    "control_metrics_more": {
        "en": "The first {shown} keys are offered; {count} more are found with the filter.",
        "zh": "只列出前 {shown} 个指标；另外 {count} 个可用筛选框查找。",
    },
    "control_smoothing": {"en": "Smoothing", "zh": "平滑"},
    "smoothing_none": {"en": "none", "zh": "无"},
    "smoothing_moving_average": {"en": "moving average", "zh": "移动平均"},
    "smoothing_ema": {"en": "EMA", "zh": "EMA"},
    "control_window": {"en": "Window (steps)", "zh": "窗口（步）"},
    "control_weight": {"en": "EMA weight", "zh": "EMA 权重"},
    "control_weight_help": {
        "en": "TensorBoard-compatible smoothing weight: 0 is raw, 0.99 is very smooth.",
        "zh": "与 TensorBoard 相同的平滑权重：0 为原始值，0.99 为极度平滑。",
    },
    "control_x": {"en": "X axis", "zh": "横轴"},
    "x_step": {"en": "step", "zh": "训练步"},
    "x_hours": {"en": "elapsed hours", "zh": "已用小时"},
    "x_samples": {"en": "samples seen", "zh": "已见样本"},
    "x_tokens": {"en": "tokens", "zh": "token 数"},
    "x_gpu_hours": {"en": "GPU-hours", "zh": "GPU 小时"},
    "control_band": {"en": "Repeats' band", "zh": "重复运行的区间"},
    "band_minmax": {"en": "min–max", "zh": "最小–最大"},
    "band_std": {"en": "± 1 std", "zh": "± 1 标准差"},
    "group_legend": {"en": "{name} ({n} runs)", "zh": "{name}（{n} 次运行）"},
    "chart_group_crashed": {
        "en": "{member} crashed after step {step}: drawn up to there, and left out of {group}'s mean and band "
        "after it.",
        "zh": "{member} 在 step {step} 后崩溃：曲线画到该步，此后不计入 {group} 的均值和区间。",
    },
    "group_tip_group": {"en": "group", "zh": "分组"},
    "group_tip_mean": {"en": "mean", "zh": "均值"},
    "group_tip_runs": {"en": "runs with a value (n)", "zh": "有值的运行数（n）"},
    "control_band_help": {
        "en": "Runs whose settings differ only in seeds, names and paths are drawn as one group: their mean line, "
        "this band where two or more have values, and the runs themselves as faint lines.",
        "zh": "设置仅在随机种子、名称与路径上不同的运行画作一组：均值线、至少两次运行有值处的区间，"
        "以及淡色的各次运行。",
    },
    "axis_left_out": {
        "en": "Not on the {axis} axis: {runs} ({missing}).",
        "zh": "未画在「{axis}」横轴上：{runs}（{missing}）。",
    },
    "axis_missing_step_times": {"en": "no step times in the log", "zh": "日志中没有步耗时"},
    "axis_missing_gpus": {
        "en": "no GPU count, trainer.n_gpus_per_node × trainer.nnodes, in its settings",
        "zh": "配置中没有 GPU 数（trainer.n_gpus_per_node × trainer.nnodes）",
    },
    "axis_missing_batch": {
        "en": "no prompts × samples per step, data.train_batch_size × actor_rollout_ref.rollout.n, in its settings",
        "zh": "配置中没有每步的提示数 × 采样数（data.train_batch_size × actor_rollout_ref.rollout.n）",
    },
    "axis_missing_tokens": {
        "en": "neither perf/total_num_tokens nor response_length/mean with prompts × samples per step",
        "zh": "既无 perf/total_num_tokens，也无 response_length/mean 与每步提示数 × 采样数",
    },
    "axis_tokens_total": {
        "en": "Tokens: prompt and response tokens of each step, from perf/total_num_tokens (the sum global_seqlen "
        "splits across ranks), summed{runs}.",
        "zh": "token 数：每步的提示与回答 token 数（取自 perf/total_num_tokens，即 global_seqlen 各卡之和），"
        "逐步累加{runs}。",
    },
    "axis_tokens_response": {
        "en": "Tokens: response tokens of each step, response_length/mean × prompts × samples, summed{runs}.",
        "zh": "token 数：每步的回答 token 数（response_length/mean × 提示数 × 采样数），逐步累加{runs}。",
    },
    "axis_tokens_runs": {"en": " for {runs}", "zh": "（{runs}）"},
    "axis_counted_from": {
        "en": "Samples, tokens and GPU-hours are counted from each log's first training step.",
        "zh": "样本数、token 数与 GPU 小时均从各日志的第一个训练步起累计。",
    },
    "control_log": {"en": "Log scale", "zh": "对数坐标"},
    "raw_suffix": {"en": " (raw)", "zh": "（原始）"},
    "signal_marker": {"en": "signal", "zh": "信号"},
    "reference_cap": {"en": "{cap} response cap", "zh": "{cap} 生成上限"},
    "hours_chart": {"en": "Total training hours", "zh": "总训练耗时（小时）"},
    "hours_axis": {"en": "hours", "zh": "小时"},
    "chart_total": {"en": "total", "zh": "合计"},
    "chart_pass_rate": {"en": "Pass rate (%)", "zh": "通过率（%）"},
    "chart_response_length": {"en": "Mean response length (tokens)", "zh": "平均响应长度（词元）"},
    "chart_response_clip": {"en": "Responses cut at the cap (%)", "zh": "被截断的响应（%）"},
    "chart_entropy": {"en": "Policy entropy", "zh": "策略熵"},
    "chart_grad_norm": {"en": "Gradient norm (grad_norm)", "zh": "梯度范数（grad_norm）"},
    "chart_clipfrac": {"en": "PPO clip fractions (%)", "zh": "PPO 裁剪比例（%）"},
    "chart_kl_loss": {"en": "KL loss", "zh": "KL 损失"},
    "chart_probs_diff": {
        "en": "rollout↔training probability difference (mean)",
        "zh": "rollout↔训练概率差（均值）",
    },
    "exp_rollout_corr": {
        "en": "Rollout correction (verl's health bounds as dashed lines)",
        "zh": "Rollout 校正（虚线为 verl 给出的健康边界）",
    },
    "chart_mismatch": {
        "en": "Rollout↔training mismatch ((1−corr)×1e4)",
        "zh": "rollout↔训练概率偏离度（(1−corr)×1e4）",
    },
    "chart_step_time": {"en": "Time per step by phase (s)", "zh": "每步各阶段耗时（秒）"},
    "chart_throughput": {"en": "Throughput (tokens/s per GPU)", "zh": "吞吐量（词元/秒/卡）"},
    "chart_validation": {"en": "{source} validation", "zh": "{source} 验证"},
    "chart_vf_loss": {"en": "Critic value loss (vf_loss)", "zh": "价值损失（vf_loss）"},
    "chart_vf_explained_var": {"en": "Critic explained variance", "zh": "价值模型解释方差"},
    "chart_critic_grad_norm": {"en": "Critic gradient norm", "zh": "价值模型梯度范数"},
    "chart_values_returns": {"en": "Critic values vs returns", "zh": "价值估计与回报"},
    "chart_focus": {"en": "{metric} (from the signal)", "zh": "{metric}（信号所指）"},
    "focus_marker": {"en": "the signal's step {step}", "zh": "信号所在步 {step}"},
    "note_three_decimals": {
        "en": "logged with 3 decimals (verl ≤ 0.4): small values move in steps of 10",
        "zh": "日志只保留 3 位小数（verl ≤ 0.4）：小数值呈 10 的阶梯",
    },
    # --- notes under charts whose verl metric is easy to misread (rlmon.views.lines.metric_note) ---
    "note_grad_norm": {
        "en": "grad_norm is measured before clipping: the total norm clip_grad_norm_ returns (verl dp_actor.py).",
        "zh": "grad_norm 是裁剪前的值：clip_grad_norm_ 返回的总范数（verl dp_actor.py）。",
    },
    "note_entropy_loss": {
        "en": "Logged as actor/entropy_loss: it is the entropy itself, not a loss (verl dp_actor.py).",
        "zh": "记录为 actor/entropy_loss：它就是熵，不是损失（verl dp_actor.py）。",
    },
    "note_clip_ratio": {
        "en": "This run used verl's V1 trainer (trainer.use_v1), whose clip ratio is measured against the batch's "
        "longest response, not the configured cap: it is never 0, even when no response reached the cap "
        "(verl issue #7817).",
        "zh": "此运行使用 verl V1 训练器（trainer.use_v1）：其截断率按批内最长响应而非配置的上限计算，"
        "因此即使没有响应达到上限也永不为 0（verl 问题 #7817）。",
    },
    "axis_tokens": {"en": "tokens", "zh": "词元数"},
    "axis_score": {"en": "score", "zh": "分数"},
    "axis_seconds": {"en": "seconds", "zh": "秒"},
    "axis_value": {"en": "value", "zh": "数值"},
    "axis_actor_entropy": {"en": "entropy", "zh": "熵"},
    "axis_actor_grad_norm": {"en": "grad norm", "zh": "梯度范数"},
    "axis_actor_kl_loss": {"en": "KL loss", "zh": "KL 损失"},
    "axis_rollout_mismatch": {"en": "(1−corr)×1e4", "zh": "(1−相关系数)×1e4"},
    "axis_step_time_min": {"en": "minutes", "zh": "分钟"},
    "axis_elapsed_h": {"en": "hours", "zh": "小时"},
    "axis_critic_vf_loss": {"en": "value loss", "zh": "价值损失"},
    "axis_critic_vf_explained_var": {"en": "explained var.", "zh": "解释方差"},
    "axis_critic_grad_norm": {"en": "grad norm", "zh": "梯度范数"},
    "axis_perf_throughput": {"en": "tokens/s/GPU", "zh": "词元/秒/卡"},
    "bar_status": {"en": "{hours}\n{status}", "zh": "{hours}\n{status}"},
    "bar_status_projection": {"en": "{hours}\n{status}\n→ {total}", "zh": "{hours}\n{status}\n→ {total}"},
    "bar_projected": {"en": "projected total", "zh": "预计总耗时"},
    "chart_step_total": {"en": "step total", "zh": "单步合计"},
    "series_upper": {"en": "pg_clipfrac", "zh": "pg_clipfrac"},
    "series_lower": {"en": "pg_clipfrac_lower", "zh": "pg_clipfrac_lower"},
    "chart_pending": {"en": "drawing…", "zh": "绘制中…"},
    "svg_save": {"en": "SVG", "zh": "SVG"},
    "svg_save_help": {
        "en": "Save this chart as an SVG image (PNG: the chart's own menu, top right)",
        "zh": "将此图表保存为 SVG 图片（PNG：图表右上角自带的菜单）",
    },
    # --- experiment page: progress, failure, source files, setting groups, the metric explorer ---
    "exp_progress": {"en": "{done}/{total} steps", "zh": "{done}/{total} 步"},
    "exp_elapsed": {"en": "Elapsed", "zh": "已用时间"},
    "exp_eta": {"en": "ETA", "zh": "预计剩余"},
    "exp_step_time": {"en": "Step time", "zh": "单步耗时"},
    "exp_last_update": {"en": "Log last grew", "zh": "日志最近更新"},
    "exp_ago": {"en": "{duration} ago", "zh": "{duration}前"},
    "exp_failure": {"en": "First exception line:", "zh": "首个异常行："},
    "exp_missing_steps": {
        "en": "{count} step(s) missing inside the logged range: {steps}",
        "zh": "记录范围内缺少 {count} 步：{steps}",
    },
    "exp_complete": {"en": "{done}/{total} steps, nothing missing", "zh": "{done}/{total} 步，无缺失"},
    "exp_paragraph_title": {"en": "In short", "zh": "概述"},
    "exp_signals": {"en": "Signals", "zh": "信号"},
    "exp_settings": {"en": "Settings", "zh": "设置"},
    "exp_sources": {"en": "Source files", "zh": "日志文件"},
    "exp_charts": {"en": "Training curves", "zh": "训练曲线"},
    "exp_validation": {"en": "Validation", "zh": "验证"},
    "exp_validation_none": {"en": "No validation logged yet.", "zh": "尚无验证记录。"},
    "exp_explorer": {"en": "All metrics", "zh": "全部指标"},
    "exp_explorer_filter": {"en": "Filter", "zh": "筛选"},
    "exp_explorer_filter_help": {
        "en": "Part of a key or a regular expression, e.g. `actor/` or `timing_s/(gen|update)`; "
        "it searches every family.",
        "zh": "指标名的一部分或正则表达式，例如 `actor/` 或 `timing_s/(gen|update)`；搜索全部类别。",
    },
    "exp_explorer_family": {"en": "Family", "zh": "类别"},
    "exp_explorer_all": {"en": "all", "zh": "全部"},
    "exp_explorer_count": {
        "en": "{shown} of {total} keys shown",
        "zh": "显示 {shown} / {total} 个指标",
    },
    "exp_explorer_more": {
        "en": "Only the first {shown} charts are drawn; narrow the filter to see the others.",
        "zh": "只绘制前 {shown} 个图；请缩小筛选范围以查看其余指标。",
    },
    "col_file": {"en": "file", "zh": "文件"},
    "col_size": {"en": "size", "zh": "大小"},
    "col_range": {"en": "steps", "zh": "步范围"},
    "col_role": {"en": "role", "zh": "作用"},
    "col_note": {"en": "note", "zh": "说明"},
    "col_value": {"en": "value", "zh": "值"},
    "group_model": {"en": "Model", "zh": "模型"},
    "group_hardware": {"en": "Hardware", "zh": "硬件"},
    "group_rollout": {"en": "Rollout", "zh": "采样"},
    "group_algorithm": {"en": "Algorithm", "zh": "算法"},
    "group_optimisation": {"en": "Optimisation", "zh": "优化"},
    "group_schedule": {"en": "Schedule", "zh": "日程"},
    "exp_validation_table": {"en": "{source}: every score per test step", "zh": "{source}：每个测试步的全部分数"},
    "exp_failure_at": {
        "en": "The run failed after step {step}. The last frames of the traceback and the error:",
        "zh": "训练在第 {step} 步之后失败。调用栈的最后几帧与错误：",
    },
    "exp_explorer_matched": {
        "en": "{matched} of {total} keys match the filter, in every family",
        "zh": "{total} 个指标中有 {matched} 个匹配筛选（搜索全部类别）",
    },
    "exp_explorer_literal": {
        "en": "not a valid regular expression: matched as plain text",
        "zh": "不是有效的正则表达式：按普通文本匹配",
    },
    # --- samples page: what the model wrote ---
    "samples_title": {"en": "What the model wrote", "zh": "模型写了什么"},
    "samples_caption": {
        "en": "The examples verl prints while it scores validation (and training, when the reward manager's "
        "num_examine > 0), and the records of its generation dumps (trainer.rollout_data_dir, "
        "trainer.validation_data_dir). Text is shown as written, never as HTML.",
        "zh": "verl 在验证（以及 reward manager 的 num_examine > 0 时的训练）打分时打印的样例，以及生成转储"
        "（trainer.rollout_data_dir、trainer.validation_data_dir）中的记录。文本按原样显示，从不作为 HTML 渲染。",
    },
    "samples_experiment": {"en": "Experiment", "zh": "实验"},
    "samples_none": {
        "en": "{name} has no samples: its logs hold no [prompt] / [response] prints and no generation dump "
        "folder was found.",
        "zh": "{name} 没有样例：日志中没有 [prompt] / [response] 打印，也未找到生成转储目录。",
    },
    "samples_no_experiments": {"en": "No experiment to show.", "zh": "没有可显示的实验。"},
    "samples_tab_browse": {"en": "Browse", "zh": "浏览"},
    "samples_tab_steps": {"en": "One prompt across steps", "zh": "同一提示词跨 step"},
    "samples_tab_experiments": {"en": "One prompt across experiments", "zh": "同一提示词跨实验"},
    "samples_step": {"en": "Step", "zh": "Step"},
    "samples_all": {"en": "all", "zh": "全部"},
    "samples_data_source": {"en": "Data source", "zh": "数据源"},
    "samples_outcome": {"en": "Score", "zh": "得分"},
    "samples_pass": {"en": "pass (> 0)", "zh": "通过（> 0）"},
    "samples_fail": {"en": "fail", "zh": "未通过"},
    "samples_search": {"en": "Search the text", "zh": "搜索文本"},
    "samples_count": {"en": "{shown} of {total} samples", "zh": "{total} 条样例中的 {shown} 条"},
    "samples_first": {
        "en": "The first {limit} are shown; narrow the choice to see the others.",
        "zh": "仅显示前 {limit} 条；缩小筛选范围以查看其余样例。",
    },
    "samples_prompt": {"en": "Prompt", "zh": "提示词"},
    "samples_response": {"en": "Response", "zh": "回复"},
    "samples_ground_truth": {"en": "Ground truth", "zh": "标准答案"},
    "samples_score": {"en": "score {score}", "zh": "得分 {score}"},
    "samples_tokens": {"en": "length {count} (tokens)", "zh": "长度 {count}（token）"},
    "samples_chars": {"en": "length {count} (characters)", "zh": "长度 {count}（字符）"},
    "samples_step_pending": {"en": "step pending", "zh": "step 待定"},
    "samples_step_n": {"en": "step {step}", "zh": "step {step}"},
    "samples_kind_validation": {"en": "validation", "zh": "验证"},
    "samples_kind_training": {"en": "training", "zh": "训练"},
    "samples_origin_log": {"en": "console print", "zh": "控制台打印"},
    "samples_origin_dump": {"en": "generation dump", "zh": "生成转储"},
    "samples_extra": {"en": "Other fields", "zh": "其他字段"},
    "samples_markdown": {"en": "Render markdown and math", "zh": "渲染 Markdown 与公式"},
    "samples_markdown_help": {
        "en": "Off: the text exactly as written, in monospace. On: emphasis, lists and $math$ are rendered; links, "
        "images and HTML never are.",
        "zh": "关闭：按原样以等宽字体显示。开启：渲染强调、列表和 $公式$；链接、图片和 HTML 始终不渲染。",
    },
    "samples_pick_prompt": {"en": "Prompt", "zh": "提示词"},
    "samples_left": {"en": "Left", "zh": "左侧"},
    "samples_right": {"en": "Right", "zh": "右侧"},
    "samples_other": {"en": "Compare with", "zh": "对比实验"},
    "samples_no_other": {
        "en": "No other experiment has a sample of a prompt this one has.",
        "zh": "没有其他实验包含与本实验相同提示词的样例。",
    },
    "samples_one_step": {
        "en": "This prompt was printed at one step only.",
        "zh": "该提示词只在一个 step 中打印过。",
    },
    "samples_no_common_step": {
        "en": "The two experiments have no step in common for this prompt; the nearest steps are shown.",
        "zh": "两个实验在该提示词上没有共同的 step；显示最接近的 step。",
    },
    "samples_latest": {"en": "Latest samples", "zh": "最新样例"},
    "samples_latest_link": {"en": "{label} · step {step}", "zh": "{label} · step {step}"},
    "samples_dump_outside": {
        "en": "Dump folder outside the log roots: {folder} is not read. To read it, add it (or a folder above it) "
        "to the dump_roots setting (--dump-root / RLMON_DUMP_ROOT).",
        "zh": "转储文件夹在日志根目录之外：不读取 {folder}。如需读取，请将它（或其上级文件夹）加入 dump_roots 设置"
        "（--dump-root / RLMON_DUMP_ROOT）。",
    },
    "samples_unknown_experiment": {
        "en": "There is no experiment {id} under the configured log roots. It may have been moved or renamed; "
        "pick one below.",
        "zh": "已配置的日志根目录下没有实验 {id}。它可能已被移动或重命名；请在下方选择其他实验。",
    },
    # --- report: the HTML report and its download ---
    "report_title": {"en": "rlmon report", "zh": "rlmon 报告"},
    "report_setting": {"en": "{name}: {value}", "zh": "{name}：{value}"},
    "report_made": {"en": "Made {time}", "zh": "生成于 {time}"},
    "report_contents": {"en": "Experiments in this report", "zh": "本报告中的实验"},
    "report_legend_hint": {
        "en": "Click experiments to highlight them in every comparison chart; click again to clear.",
        "zh": "点击实验可在所有对比图表中突出显示；再次点击取消。",
    },
    "report_logs": {"en": "Log files ({count})", "zh": "日志文件（{count}）"},
    "report_footer": {
        "en": "Made by rlmon {version} on {time} from the log files above. This file opens offline in any browser.",
        "zh": "由 rlmon {version} 于 {time} 根据上列日志文件生成。此文件可离线在任何浏览器中打开。",
    },
    "report_noscript": {
        "en": "The charts of this report need JavaScript; the tables and text are all here.",
        "zh": "本报告的图表需要 JavaScript；表格和文字均可直接阅读。",
    },
    "report_chart_menu": {"en": "Save this chart", "zh": "保存此图表"},
    "report_save_png": {"en": "Save as PNG", "zh": "保存为 PNG"},
    "report_save_svg": {"en": "Save as SVG", "zh": "保存为 SVG"},
    "report_download": {"en": "Download report (HTML)", "zh": "下载报告（HTML）"},
    "report_download_help": {
        "en": "One HTML file with this page's numbers, summary and charts (language, smoothing and charts as "
        "chosen here) and a section per experiment. It opens offline by double-click and can be sent in chat "
        "or email.",
        "zh": "单个 HTML 文件，包含本页的数字、小结和图表（语言、平滑和图表与此处所选一致），以及每个实验的一节。"
        "双击即可离线打开，可通过聊天或邮件发送。",
    },
    # --- metric titles: derived metrics and well-known keys (metric_title) ---
    "metric_pass_rate": {"en": "pass rate (%)", "zh": "通过率（%）"},
    "metric_rollout_mismatch": {"en": "rollout↔training mismatch (1e-4)", "zh": "rollout↔训练偏离度（1e-4）"},
    "metric_pg_clipfrac_pct": {"en": "pg_clipfrac (%)", "zh": "pg_clipfrac（%）"},
    "metric_pg_clipfrac_lower_pct": {"en": "pg_clipfrac_lower (%)", "zh": "pg_clipfrac_lower（%）"},
    "metric_response_clip_pct": {"en": "responses cut at the cap (%)", "zh": "被截断的响应（%）"},
    "metric_step_time_min": {"en": "step time (min)", "zh": "单步耗时（分钟）"},
    "metric_elapsed_h": {"en": "elapsed training hours", "zh": "已用训练小时"},
    "metric_hours_total": {"en": "total training hours (bars)", "zh": "总训练耗时（柱状）"},
    "metric_response_length/mean": {"en": "mean response length (tokens)", "zh": "平均响应长度（词元）"},
    "metric_actor/entropy": {"en": "policy entropy", "zh": "策略熵"},
    "metric_actor/grad_norm": {"en": "grad_norm", "zh": "梯度范数 grad_norm"},
    "metric_validation": {"en": "{source} validation score", "zh": "{source} 验证分数"},
    # --- settings: labels (rlmon.runs.experiment.extract_settings keys), values that hold words (setting_display) ---
    "setting_model": {"en": "model", "zh": "模型"},
    "setting_thinking": {"en": "thinking", "zh": "思考模式"},
    "setting_gpus": {"en": "GPUs", "zh": "GPU 数"},
    "setting_param_offload": {"en": "param offload", "zh": "参数 offload"},
    "setting_optimizer_offload": {"en": "optimizer offload", "zh": "优化器 offload"},
    "setting_rollout_engine": {"en": "rollout engine", "zh": "采样引擎"},
    "setting_rollout_tp": {"en": "rollout TP", "zh": "采样 TP"},
    "setting_max_prompt_length": {"en": "max prompt", "zh": "最大 prompt 长度"},
    "setting_max_response_length": {"en": "max response", "zh": "最大响应长度"},
    "setting_batch": {"en": "prompts × samples", "zh": "prompt 数 × 采样数"},
    "setting_algorithm": {"en": "algorithm", "zh": "算法"},
    "setting_adv_estimator": {"en": "advantage estimator", "zh": "优势估计"},
    "setting_norm_adv_by_std": {"en": "divide by group std", "zh": "除以组内 std"},
    "setting_kl_loss": {"en": "KL loss", "zh": "KL 损失"},
    "setting_kl_loss_type": {"en": "KL loss type", "zh": "KL 损失类型"},
    "setting_kl_loss_coef": {"en": "KL loss coef", "zh": "KL 损失系数"},
    "setting_kl_in_reward": {"en": "KL in reward", "zh": "奖励中的 KL"},
    "setting_loss_agg_mode": {"en": "loss aggregation", "zh": "loss 聚合方式"},
    "setting_clip_ratio": {"en": "clip ratio low/high", "zh": "裁剪比例 低/高"},
    "setting_dynamic_sampling": {"en": "dynamic sampling", "zh": "动态采样"},
    "setting_overlong_shaping": {"en": "overlong shaping", "zh": "超长奖励塑形"},
    "setting_lr": {"en": "learning rate", "zh": "学习率"},
    "setting_ppo_mini_batch_size": {"en": "mini-batch", "zh": "mini-batch"},
    "setting_entropy_coeff": {"en": "entropy coef", "zh": "熵系数"},
    "setting_test_freq": {"en": "test every", "zh": "验证间隔"},
    "setting_save_freq": {"en": "save every", "zh": "保存间隔"},
    "setting_total_epochs": {"en": "epochs", "zh": "轮数"},
    "setting_total_steps": {"en": "total steps", "zh": "总步数"},
    "value_on": {"en": "on", "zh": "开启"},
    "value_off": {"en": "off", "zh": "关闭"},
    "value_on_detail": {"en": "on {detail}", "zh": "开启 {detail}"},
    "value_gpus": {"en": "{n} GPUs", "zh": "{n} 卡"},
    "value_gpus_nodes": {"en": "{n} GPUs ({nodes}×{per_node})", "zh": "{n} 卡（{nodes}×{per_node}）"},
    "value_thinking": {"en": "thinking", "zh": "思考模式"},
    "value_non_thinking": {"en": "non-thinking", "zh": "非思考模式"},
    "value_every_steps": {"en": "{n} steps", "zh": "每 {n} 步"},
    # --- algorithms: rlmon's own descriptions (rlmon.runs.experiment.ALGORITHMS) ---
    "algo_unknown": {
        "en": "No config dump found; the algorithm is unknown.",
        "zh": "没有找到配置转储，算法未知。",
    },
    "algo_ppo": {
        "en": "Actor-critic PPO: a learned value model (critic) gives GAE advantages.",
        "zh": "行动者-评论家 PPO：由学习得到的价值模型（critic）给出 GAE 优势。",
    },
    "algo_grpo": {
        "en": "Group-relative advantages: reward minus the group mean, divided by the group std.",
        "zh": "组内相对优势：奖励减去组内均值，再除以组内标准差。",
    },
    "algo_dr_grpo": {
        "en": "GRPO without the std division, loss summed per token and normalised by a constant (no length bias).",
        "zh": "不除以标准差的 GRPO，损失按词元求和并除以常数归一（无长度偏差）。",
    },
    "algo_dapo": {
        "en": "GRPO with clip-higher, dynamic sampling (drops all-right/all-wrong groups) and overlong reward shaping.",
        "zh": "带 clip-higher、动态采样（丢弃全对/全错的组）和超长奖励塑形的 GRPO。",
    },
    "algo_rloo": {
        "en": "Leave-one-out baseline: each sample is compared with the mean of the others in its group.",
        "zh": "留一基线：每个样本与同组其他样本的均值比较。",
    },
    "algo_reinforce_pp": {
        "en": "No group baseline: discounted returns whitened over the whole batch, with a KL penalty.",
        "zh": "无组内基线：折扣回报在整个批次上白化，并带 KL 惩罚。",
    },
    "algo_reinforce_pp_baseline": {
        "en": "REINFORCE++ with the group mean subtracted before whitening over the batch.",
        "zh": "先减去组内均值、再在批次上白化的 REINFORCE++。",
    },
    "algo_gpg": {
        "en": "Group Policy Gradient: plain policy gradient on group-relative advantages, no clipping or KL.",
        "zh": "组策略梯度（GPG）：基于组内相对优势的普通策略梯度，无裁剪、无 KL。",
    },
    "algo_remax": {
        "en": "REINFORCE with the reward of a greedy rollout as the baseline.",
        "zh": "以贪心生成的奖励为基线的 REINFORCE。",
    },
    "algo_opo": {
        "en": "On-policy RL with a length-weighted optimal reward baseline.",
        "zh": "以按长度加权的最优奖励为基线的同策略强化学习。",
    },
    "algo_grpo_passk": {
        "en": "GRPO variant that rewards the best sample of each group (optimises pass@k).",
        "zh": "奖励每组最佳样本的 GRPO 变体（优化 pass@k）。",
    },
    # --- signals: kinds (rlmon.analysis.signals.KINDS) and what each signal says ---
    "kind_spike": {"en": "spike", "zh": "尖峰"},
    "kind_spikes": {"en": "repeated spikes", "zh": "多次尖峰"},
    "kind_entropy_rising": {"en": "entropy rising", "zh": "熵持续走高"},
    "kind_entropy_collapse": {"en": "entropy collapse", "zh": "熵塌缩"},
    "kind_validation_drop": {"en": "validation drop", "zh": "验证回落"},
    "kind_length_cap": {"en": "length at cap", "zh": "长度触顶"},
    "kind_length_growth": {"en": "length growth", "zh": "长度增长"},
    "kind_mismatch_high": {"en": "mismatch high", "zh": "偏离度偏高"},
    "kind_mismatch_rising": {"en": "mismatch rising", "zh": "偏离度上升"},
    "kind_non_finite": {"en": "non-finite values", "zh": "非有限值"},
    "kind_pass_rate_collapse": {"en": "pass-rate collapse", "zh": "pass rate 崩塌"},
    "kind_kl_blowup": {"en": "KL blow-up", "zh": "KL 失控"},
    "kind_crashed": {"en": "crashed", "zh": "已崩溃"},
    "kind_stalled": {"en": "stalled", "zh": "已停滞"},
    "insight_spike": {
        "en": "{metric} spike at step {step}: {value} ({ratio}× the median of the {window} steps before; "
        "otherwise {low}–{high})",
        "zh": "{metric} 在 step {step} 出现尖峰：{value}（前 {window} 步中位数的 {ratio} 倍；其余步 {low}–{high}）",
    },
    "insight_spikes": {
        "en": "{metric} jumps far above its baseline {count} times (steps {first}–{last}, up to {max}; "
        "otherwise {low}–{high})",
        "zh": "{metric} 共 {count} 次远高于基线（step {first}–{last}，最高 {max}；其余步 {low}–{high}）",
    },
    "insight_entropy_rising": {
        "en": "entropy keeps rising ({start}→{end}), no converging trend",
        "zh": "entropy 持续走高（{start}→{end}），没有收敛趋势",
    },
    "insight_entropy_collapse": {
        "en": "entropy collapses towards zero ({start}→{end})",
        "zh": "entropy 向 0 塌缩（{start}→{end}）",
    },
    "insight_validation_drop": {
        "en": "{source} drops to {value} at step {step} (previous {previous}, best {best} at step {best_step})",
        "zh": "{source} 在 step {step} 回落到 {value}（上一次 {previous}，最高 {best} 在 step {best_step}）",
    },
    "insight_length_cap": {
        "en": "responses reach the {cap} length cap: {clip} cut off over the last {window} steps (start {clip_start})",
        "zh": "响应长度触及 {cap} 上限：末 {window} 步 {clip} 的响应被截断（起步 {clip_start}）",
    },
    "insight_length_cap_max": {
        "en": "responses reach the {cap} length cap: the longest hits it while the mean is {mean}",
        "zh": "响应长度触及 {cap} 上限：最长响应已到上限，平均长度 {mean}",
    },
    "insight_length_growth": {
        "en": "response length keeps growing ({start}→{end}, ×{ratio})",
        "zh": "响应长度持续增长（{start}→{end}，×{ratio}）",
    },
    "insight_mismatch_high": {
        "en": "rollout↔training mismatch is high: {end} ×1e-4 over the last {window} steps",
        "zh": "rollout↔训练概率偏离度偏高：末 {window} 步 {end} ×1e-4",
    },
    "insight_mismatch_rising": {
        "en": "rollout↔training mismatch rises ({start}→{end} ×1e-4)",
        "zh": "rollout↔训练概率偏离度上升（{start}→{end} ×1e-4）",
    },
    "insight_non_finite": {
        "en": "{metric} is not finite (NaN/inf) at {count} step(s), first at step {step}",
        "zh": "{metric} 出现非有限值（NaN/inf）共 {count} 步，首次在 step {step}",
    },
    "insight_pass_rate_collapse": {
        "en": "pass rate collapses: {end} over the last {window} steps, down from {peak} around step {peak_step}",
        "zh": "pass rate 崩塌：末 {window} 步 {end}，此前在 step {peak_step} 附近为 {peak}",
    },
    "insight_kl_blowup": {
        "en": "{metric} blows up: {end} over the last {window} steps, {ratio}× its earlier median {base}",
        "zh": "{metric} 失控：末 {window} 步 {end}，是此前中位数 {base} 的 {ratio} 倍",
    },
    "insight_crashed": {
        "en": "crashed after step {step}: {failure}{frame}",
        "zh": "在 step {step} 之后崩溃：{failure}{frame}",
    },
    "insight_crashed_start": {
        "en": "crashed before step 1: {failure}{frame}",
        "zh": "在第 1 步之前崩溃：{failure}{frame}",
    },
    "insight_crashed_frame": {"en": " (in {frame})", "zh": "（位于 {frame}）"},
    "insight_stalled": {
        "en": "stalled at {progress}: the log has not grown for {idle}",
        "zh": "已停滞于 {progress}：日志已 {idle} 没有更新",
    },
    "insight_stalled_start": {
        "en": "no training step yet and the log has not grown for {idle}",
        "zh": "尚无训练 step，日志已 {idle} 没有更新",
    },
    "insight_days": {"en": "{days} days", "zh": "{days} 天"},
    # --- verl's own health rules (rlmon.analysis.health) and the signals built on them ---
    "kind_probs_diff_high": {"en": "rollout precision", "zh": "推理精度偏差"},
    "kind_rollout_corr": {"en": "off-policy gap", "zh": "离策略偏差"},
    "kind_step_time_regression": {"en": "slower steps", "zh": "步耗时变慢"},
    "kind_collapse_signature": {"en": "collapse signature", "zh": "崩溃征兆"},
    "rule_source": {
        "en": "verl's rule: {metric} {bounds} (verl {source})",
        "zh": "verl 的规则：{metric} {bounds}（verl {source}）",
    },
    "rule_line": {"en": "verl {value} ({source})", "zh": "verl {value}（{source}）"},
    "rule_normal": {"en": "normal below {value} (verl FAQ)", "zh": "低于 {value} 为正常（verl 常见问题）"},
    "rule_own": {
        "en": "rlmon's rule (settings: {settings})",
        "zh": "rlmon 自己的规则（设置：{settings}）",
    },
    "rule_own_step_time": {
        "en": "rlmon's rule, not verl's: verl publishes no number for slower steps (settings: {settings})",
        "zh": "rlmon 自己的规则，不是 verl 的：verl 没有给出步耗时变慢的数值（设置：{settings}）",
    },
    "rule_own_collapse": {
        "en": "rlmon's rule, not verl's: verl publishes no number for it; verl's FAQ names grad_norm rising "
        "continuously as a symptom of a rollout precision problem (docs/faq/faq.rst) (settings: {settings})",
        "zh": "rlmon 自己的规则，不是 verl 的：verl 没有给出它的数值；verl 常见问题把 grad_norm 持续上升列为"
        "推理精度问题的征兆（docs/faq/faq.rst）（设置：{settings}）",
    },
    "rule_step_time_line": {
        "en": "rlmon: {factor}× the median step time before the last {recent} steps",
        "zh": "rlmon：最近 {recent} 步之前的步耗时中位数 × {factor}",
    },
    "rule_step_time_tag": {"en": "rlmon: slower at {factor}× median", "zh": "rlmon：中位数 {factor} 倍即变慢"},
    "rule_collapse_tag": {"en": "rlmon: collapse signature", "zh": "rlmon：崩溃征兆"},
    "rule_collapse_span": {
        "en": "collapse signature from step {step} (rlmon's rule, not verl's)",
        "zh": "自第 {step} 步起的崩溃征兆（rlmon 自己的规则，不是 verl 的）",
    },
    # two lines under a chart's title (a subtitle does not wrap)
    "rule_far_above": {"en": "{lines}:\nfar above these values, not drawn", "zh": "{lines}：\n远高于这些值，未画出"},
    "rule_far_below": {"en": "{lines}:\nfar below these values, not drawn", "zh": "{lines}：\n远低于这些值，未画出"},
    "insight_probs_diff_high": {
        "en": "rollout↔training probability difference is {end} over the last {window} steps, above verl's 0.01 "
        "(a precision problem in the inference engine; below 0.005 is normal); {symptom}",
        "zh": "rollout↔训练概率差末 {window} 步为 {end}，高于 verl 的 0.01"
        "（推理引擎精度问题；低于 0.005 为正常）；{symptom}",
    },
    "insight_probs_diff_grad_rising": {
        "en": "grad_norm rises with it ({start}→{end}), the FAQ's symptom",
        "zh": "grad_norm 随之上升（{start}→{end}），正是 verl 常见问题文档所说的症状",
    },
    "insight_probs_diff_grad_steady": {
        "en": "grad_norm does not rise ({start}→{end})",
        "zh": "grad_norm 没有上升（{start}→{end}）",
    },
    "insight_probs_diff_no_grad": {
        "en": "no grad_norm logged to check the FAQ's symptom",
        "zh": "未记录 grad_norm，无法核对 verl 常见问题文档所说的症状",
    },
    "insight_rollout_corr": {
        "en": "{metric} is {end} over the last {window} steps, outside verl's healthy {bounds}",
        "zh": "{metric} 末 {window} 步为 {end}，超出 verl 的健康范围 {bounds}",
    },
    "insight_step_time_regression": {
        "en": "steps slow down: {recent}s per step over the last {recent_steps} steps, {ratio}× the median {base}s "
        "of the {base_steps} steps before (a throughput regression)",
        "zh": "步耗时变慢：末 {recent_steps} 步每步 {recent} 秒，是此前 {base_steps} 步中位数 {base} 秒的 {ratio} 倍"
        "（吞吐量下降）",
    },
    "insight_collapse_signature": {
        "en": "grad_norm rises ({grad_before}→{grad_after}) while the score falls ({score_before}→{score_after}) "
        "over the last {window} steps: the signature of a collapse",
        "zh": "末 {window} 步 grad_norm 上升（{grad_before}→{grad_after}）而得分下降（{score_before}→{score_after}）："
        "崩溃的征兆",
    },
    # --- from what the model wrote: correct and incorrect lengths (rlmon.analysis.outcomes) ---
    "kind_incorrect_length_growth": {"en": "incorrect answers lengthen", "zh": "错误回答变长"},
    "insight_incorrect_length_growth_tokens": {
        "en": "incorrect responses grow much faster than correct ones: {incorrect_start}→{incorrect_end} tokens "
        "({incorrect_growth}) against {correct_start}→{correct_end} ({correct_growth}), first and last {edge} "
        "dumped steps (the Dr.GRPO paper's pattern: length rewarded in wrong answers)",
        "zh": "错误回答比正确回答变长得快得多：{incorrect_start}→{incorrect_end} 词元（{incorrect_growth}），"
        "正确回答 {correct_start}→{correct_end}（{correct_growth}），取转储的前 {edge} 步与末 {edge} 步"
        "（Dr.GRPO 论文所示的模式：错误回答的长度被奖励）",
    },
    "insight_incorrect_length_growth_characters": {
        "en": "incorrect responses grow much faster than correct ones: {incorrect_start}→{incorrect_end} characters "
        "({incorrect_growth}) against {correct_start}→{correct_end} ({correct_growth}), first and last {edge} "
        "dumped steps (the Dr.GRPO paper's pattern: length rewarded in wrong answers)",
        "zh": "错误回答比正确回答变长得快得多：{incorrect_start}→{incorrect_end} 字符（{incorrect_growth}），"
        "正确回答 {correct_start}→{correct_end}（{correct_growth}），取转储的前 {edge} 步与末 {edge} 步"
        "（Dr.GRPO 论文所示的模式：错误回答的长度被奖励）",
    },
    "rule_incorrect_length_growth": {
        "en": "rlmon's rule: incorrect responses' end/start length at least {ratio}× correct ones', and grown by "
        "{growth} or more (settings: length_gap_ratio, length_gap_min_growth; from the training generation dumps)",
        "zh": "rlmon 的规则：错误回答长度的末/初之比至少是正确回答的 {ratio} 倍，且增长不少于 {growth}"
        "（设置：length_gap_ratio、length_gap_min_growth；取自训练生成转储）",
    },
    "outcome_chart_title": {
        "en": "Length of correct and incorrect responses ({unit})",
        "zh": "正确与错误回答的长度（{unit}）",
    },
    "outcome_unit_tokens": {"en": "tokens", "zh": "词元"},
    "outcome_unit_characters": {"en": "characters", "zh": "字符"},
    "outcome_correct": {"en": "correct", "zh": "正确"},
    "outcome_incorrect": {"en": "incorrect", "zh": "错误"},
    "outcome_equal_title": {
        "en": "Groups with all-equal rewards (no learning signal)",
        "zh": "奖励全部相同的组（无学习信号）",
    },
    "outcome_equal_share": {"en": "share of groups", "zh": "组占比"},
    "outcome_section": {"en": "From what the model wrote", "zh": "从模型的输出看"},
    "outcome_caption": {
        "en": "From the training generation dumps (trainer.rollout_data_dir): correct = score above 0; a group = "
        "the responses to one prompt at one step; mean per step.",
        "zh": "取自训练生成转储（trainer.rollout_data_dir）：得分大于 0 为正确；一组 = 同一步中同一提示的全部回答；"
        "每步取平均。",
    },
    "outcome_step": {"en": "step", "zh": "步"},
    "outcome_dump_problems": {
        "en": "{count} damaged dump records left out",
        "zh": "已略过 {count} 条损坏的转储记录",
    },
    # --- summary: the written summary and an experiment's paragraph (rlmon.analysis.summary) ---
    "insight_track_status": {"en": "{track}: {states}.", "zh": "{track}：{states}。"},
    "insight_track_status_list": {"en": "{track}, {count} runs:", "zh": "{track}，{count} 个实验："},
    "insight_overview": {
        "en": "{runs} runs on {tracks} tracks: {states}.",
        "zh": "{tracks} 个赛道共 {runs} 个实验：{states}。",
    },
    "insight_status_count": {"en": "{count} {status}", "zh": "{status} {count} 个"},
    "insight_single_tracks": {"en": "Tracks of one run · {text}", "zh": "单实验赛道 · {text}"},
    "insight_attention_lead": {"en": "Worth attention:", "zh": "值得关注："},
    "insight_attention_noted": {"en": "{text} (info)", "zh": "{text}（提示）"},
    "insight_track_prefix": {"en": "{track} · {text}", "zh": "{track} · {text}"},
    "insight_state_finished": {"en": "{names} finished {progress}", "zh": "{names} 已完成 {progress}"},
    "insight_state_running": {"en": "{names} running {progress}", "zh": "{names} 运行中 {progress}"},
    "insight_state_other": {"en": "{names} {status} {progress}", "zh": "{names} {status} {progress}"},
    "insight_pass_rates": {
        "en": "Pass rate, first-5 → last-10-step mean: {items}.",
        "zh": "pass rate（首 5 步 → 末 10 步均值）：{items}。",
    },
    "insight_pass_rates_lead": {
        "en": "Pass rate, first-5 → last-10-step mean:",
        "zh": "pass rate（首 5 步 → 末 10 步均值）：",
    },
    "insight_pass_item": {"en": "{name} {start} → {end}", "zh": "{name} {start} → {end}"},
    "insight_group_seeds": {"en": "{name} ({count} seeds)", "zh": "{name} ({count} 个种子)"},
    "insight_group_runs": {"en": "{name} ({count} runs)", "zh": "{name} ({count} 个实验)"},
    "insight_group_except": {"en": "{state}, except {others}", "zh": "{state}，但 {others}"},
    "insight_group_members": {"en": "{group}: {states}", "zh": "{group}：{states}"},
    "insight_openings_lead": {"en": "What sets each run apart:", "zh": "各实验的不同之处："},
    "insight_opening_item": {"en": "{name}: {text}.", "zh": "{name}：{text}。"},
    "insight_groups_within_spread": {
        "en": "{first} and {second} differ by less than their spread.",
        "zh": "{first}与{second}之差小于其离散程度。",
    },
    "insight_group_crashed": {
        "en": "{member} crashed after step {step}: {group}'s mean leaves it out from then on.",
        "zh": "{member} 在 step {step} 后崩溃：此后 {group} 的均值不计入它。",
    },
    "insight_best_validation": {"en": "Best {source}: {items}.", "zh": "{source} 最高：{items}。"},
    "insight_best_item": {"en": "{name} {value} at step {step}", "zh": "{name} {value}（step {step}）"},
    "insight_leaders": {
        "en": "At the last validation (step {step}) {names} {verb} with {value}.",
        "zh": "最后一次验证（step {step}）{names} {verb}，为 {value}。",
    },
    "insight_drops": {"en": "{items}.", "zh": "{items}。"},
    "insight_drop_item": {
        "en": "{name} drops to {value} at step {step} (best {best} at step {best_step})",
        "zh": "{name} 在 step {step} 回落到 {value}（最高 {best}，step {best_step}）",
    },
    "insight_speed": {
        "en": "{fast} is the fastest ({fast_h}), {slow} the slowest ({slow_h}).",
        "zh": "{fast} 最快（{fast_h}），{slow} 最慢（{slow_h}）。",
    },
    "insight_length": {
        "en": "Response length grows most in {most} ({most_range}), least in {least} ({least_range}).",
        "zh": "响应长度 {most} 涨幅最大（{most_range}），{least} 涨幅最小（{least_range}）。",
    },
    "insight_entropy_lowest": {
        "en": "Entropy is lowest in {name} ({range}).",
        "zh": "entropy {name} 最低（{range}）。",
    },
    "insight_entropy_rises": {"en": "Entropy rises in {items}.", "zh": "entropy 持续走高：{items}。"},
    "insight_grad_lowest": {
        "en": "grad_norm is lowest in {name} ({range}).",
        "zh": "grad_norm {name} 最低（{range}）。",
    },
    "insight_attention": {"en": "Worth attention: {items}.", "zh": "值得关注：{items}。"},
    "insight_attention_none": {"en": "No signal worth attention.", "zh": "暂无值得关注的信号。"},
    "insight_attention_info": {"en": "Also noted: {items}.", "zh": "另有提示：{items}。"},
    "insight_attention_item": {"en": "{name}: {text}", "zh": "{name}：{text}"},
    "insight_spike_group": {
        "en": "{metric} spikes at steps {steps} ({values}; otherwise {band})",
        "zh": "{metric} 在 step {steps} 出现尖峰（{values}；其余步 {band}）",
    },
    "insight_spike_group_one": {
        "en": "{metric} spike at step {steps} ({values}; otherwise {band})",
        "zh": "{metric} 在 step {steps} 出现尖峰（{values}；其余步 {band}）",
    },
    "insight_tracks": {"en": "{a} vs {b}: {items}.", "zh": "{a} 对比 {b}：{items}。"},
    "insight_tracks_pass": {
        "en": "first-5-step pass rate {a_band} vs {b_band}",
        "zh": "首 5 步 pass rate {a_band} 对 {b_band}",
    },
    "insight_tracks_hours": {"en": "hours {a_band} vs {b_band}", "zh": "耗时 {a_band} 对 {b_band}"},
    # --- settings lined up with behaviour (rlmon.analysis.associations) ---
    "insight_tracks_settings": {
        "en": "{a} vs {b} (settings that differ between the tracks: {settings}): {items}.",
        "zh": "{a} 对比 {b}（两个赛道不同的设置：{settings}）：{items}。",
    },
    "insight_track_setting": {"en": "{setting} {a} vs {b}", "zh": "{setting} {a} 对 {b}"},
    "insight_track_setting_values": {"en": "{a} vs {b}", "zh": "{a} 对 {b}"},
    "insight_apart_only": {"en": "the only run with {items}", "zh": "唯一 {items} 的实验"},
    "insight_apart_shared": {
        "en": "one of only {count} runs with {item} (with {others})",
        "zh": "仅有的 {count} 个 {item} 的实验之一（另有 {others}）",
    },
    "insight_apart_setting": {"en": "{setting} {value}", "zh": "{setting} {value}"},
    "insight_apart_running": {
        "en": "still running, not yet compared with the finished runs",
        "zh": "仍在运行，尚未与已完成的实验比较",
    },
    "insight_apart": {"en": "{name} — among {names}: {text}.", "zh": "{name}——在 {names} 中：{text}。"},
    "insight_rank_pass_most": {"en": "highest final pass rate ({value})", "zh": "末段 pass rate 最高（{value}）"},
    "insight_rank_pass_least": {"en": "lowest final pass rate ({value})", "zh": "末段 pass rate 最低（{value}）"},
    "insight_rank_length_most": {"en": "most length growth ({value})", "zh": "响应长度涨幅最大（{value}）"},
    "insight_rank_length_least": {"en": "least length growth ({value})", "zh": "响应长度涨幅最小（{value}）"},
    "insight_rank_entropy_most": {"en": "highest entropy ({value})", "zh": "entropy 最高（{value}）"},
    "insight_rank_entropy_least": {"en": "lowest entropy ({value})", "zh": "entropy 最低（{value}）"},
    "insight_rank_grad_most": {"en": "highest grad_norm ({value})", "zh": "grad_norm 最高（{value}）"},
    "insight_rank_grad_least": {"en": "steadiest grad_norm ({value})", "zh": "grad_norm 最稳（{value}）"},
    "insight_rank_hours_most": {"en": "slowest ({value})", "zh": "最慢（{value}）"},
    "insight_rank_hours_least": {"en": "fastest ({value})", "zh": "最快（{value}）"},
    "insight_rank_val_most": {"en": "best {value}", "zh": "{value} 最佳"},
    "insight_rank_val_least": {"en": "lowest best {value}", "zh": "{value} 最佳成绩最低"},
    "insight_tracks_hours_spread": {
        "en": "the spread of hours is {order} on {a} ({a_band}, {a_spread} apart) than on {b} ({b_band}, "
        "{b_spread} apart)",
        "zh": "{a} 上耗时的差距（{a_band}，相差 {a_spread}）比 {b}（{b_band}，相差 {b_spread}）{order}",
    },
    "insight_spread_narrower": {"en": "narrower", "zh": "更小"},
    "insight_spread_wider": {"en": "wider", "zh": "更大"},
    "insight_assoc_entropy": {
        "en": "With {setting} {low_value}, {low_names} have the flattest entropy ({low_items}); with {setting} "
        "{high_value}, {high_names} move {factor}× as much ({high_items}).",
        "zh": "{setting}{low_value}的 {low_names} 熵最平稳（{low_items}）；{setting}{high_value}的 {high_names} "
        "变化幅度是其 {factor} 倍（{high_items}）。",
    },
    "insight_assoc_length": {
        "en": "With {setting} {low_value}, {low_names} grow their responses least ({low_items}); with {setting} "
        "{high_value}, {high_names} grow {factor}× as much ({high_items}).",
        "zh": "{setting}{low_value}的 {low_names} 响应长度涨幅最小（{low_items}）；{setting}{high_value}的 "
        "{high_names} 涨幅是其 {factor} 倍（{high_items}）。",
    },
    "insight_assoc_grad": {
        "en": "With {setting} {low_value}, {low_names} keep grad_norm lower ({low_items}); with {setting} "
        "{high_value}, {high_names} run higher ({high_items}).",
        "zh": "{setting}{low_value}的 {low_names} grad_norm 更低（{low_items}）；{setting}{high_value}的 "
        "{high_names} 更高（{high_items}）。",
    },
    "insight_assoc_hours": {
        "en": "With {setting} {low_value}, {low_names} take fewer hours ({low_items}); with {setting} "
        "{high_value}, {high_names} take more ({high_items}).",
        "zh": "{setting}{low_value}的 {low_names} 耗时更短（{low_items}）；{setting}{high_value}的 "
        "{high_names} 更长（{high_items}）。",
    },
    "insight_assoc_note": {
        "en": "These go together in these runs; the data cannot show that the setting causes them.",
        "zh": "以上只是这些实验中同时出现的现象，数据无法证明是该设置导致的。",
    },
    "insight_reversal": {
        "en": "on {a} {algorithm}'s {what} {a_order} — the opposite of {b}, where it {b_order}",
        "zh": "{a} 上 {algorithm} 的{what}{a_order}——与 {b} 相反（{b} 上{b_order}）",
    },
    "insight_what_length": {"en": "length", "zh": "响应长度"},
    "insight_what_pass": {"en": "final pass rate", "zh": "末段 pass rate"},
    "insight_what_hours": {"en": "wall-clock time", "zh": "墙钟耗时"},
    "insight_order_length_most": {"en": "grows most", "zh": "涨幅最大"},
    "insight_order_length_least": {"en": "grows least", "zh": "涨幅最小"},
    "insight_order_pass_most": {"en": "is highest", "zh": "最高"},
    "insight_order_pass_least": {"en": "is lowest", "zh": "最低"},
    "insight_order_hours_most": {"en": "is longest", "zh": "最长"},
    "insight_order_hours_least": {"en": "is shortest", "zh": "最短"},
    "insight_more_items": {"en": "and {count} more", "zh": "另有 {count} 个"},
    "insight_more_experiments": {
        "en": "and {count} more experiments (listed with the signals)",
        "zh": "另有 {count} 个实验（见信号列表）",
    },
    "insight_facts": {"en": "{facts}.", "zh": "{facts}。"},
    "insight_unknown_cap": {"en": "?", "zh": "?"},
    "insight_lead_one": {"en": "leads", "zh": "最高"},
    "insight_lead_many": {"en": "lead", "zh": "并列最高"},
    "insight_exp_status_finished": {
        "en": "{name}: finished {progress} in {hours}.",
        "zh": "{name}：已完成 {progress}，耗时 {hours}。",
    },
    "insight_exp_status_running": {
        "en": "{name}: running, {progress} after {hours}{eta}.",
        "zh": "{name}：运行中，{progress}，已用 {hours}{eta}。",
    },
    "insight_exp_status_other": {"en": "{name}: {status}, {progress}.", "zh": "{name}：{status}，{progress}。"},
    "insight_exp_eta": {"en": " (about {eta} to go)", "zh": "（预计还需 {eta}）"},
    "insight_exp_pass": {
        "en": "Pass rate {start} → {end} (first-5 → last-10-step mean)",
        "zh": "pass rate {start} → {end}（首 5 步 → 末 10 步均值）",
    },
    "insight_exp_length": {"en": "response length {range}", "zh": "响应长度 {range}"},
    "insight_exp_entropy": {"en": "entropy {range}", "zh": "entropy {range}"},
    "insight_exp_grad": {"en": "grad_norm {range}", "zh": "grad_norm {range}"},
    "insight_exp_val": {
        "en": "{source} best {best} at step {best_step}, last {last} at step {last_step}",
        "zh": "{source} 最高 {best}（step {best_step}），最近 {last}（step {last_step}）",
    },
    "insight_exp_val_initial": {
        "en": "{source} {value} before training (step {step})",
        "zh": "{source} 训练前 {value}（step {step}）",
    },
    "insight_next": {"en": "Next: {items}.", "zh": "接下来：{items}。"},
    "insight_next_item": {
        "en": "{what} at step {step} in {count} steps{time}",
        "zh": "{what}在 step {step}，还差 {count} 步{time}",
    },
    "insight_next_time": {"en": " (about {time})", "zh": "（约 {time}）"},
    "insight_next_validation": {"en": "validation", "zh": "验证"},
    "insight_next_validation_of": {"en": "{source} validation", "zh": "{source} 验证"},
    "insight_next_validation_first": {"en": "first {source} validation", "zh": "首次 {source} 验证"},
    "insight_next_checkpoint": {"en": "checkpoint", "zh": "checkpoint 保存"},
    "insight_next_end": {"en": "end", "zh": "结束"},
    "insight_exp_signals": {"en": "Signals: {items}.", "zh": "信号：{items}。"},
    "insight_exp_no_signals": {"en": "No anomaly signal.", "zh": "未见异常信号。"},
    "insight_summary_empty": {"en": "No experiment with training steps yet.", "zh": "尚无包含训练 step 的实验。"},
    "insight_signals_heading": {"en": "Signals:", "zh": "信号："},
    "insight_signals_none": {"en": "No signals.", "zh": "无信号。"},
    # --- alerts: the messages sent (rlmon.alerts.wording) and the Alerts page ---
    "alert_title": {"en": "[rlmon] {title}", "zh": "[rlmon] {title}"},
    "alert_title_crashed": {"en": "{name} crashed after step {step}", "zh": "{name} 在 step {step} 之后崩溃"},
    "alert_title_crashed_start": {"en": "{name} crashed before step 1", "zh": "{name} 在第 1 步之前崩溃"},
    "alert_title_stalled": {"en": "{name} stalled at step {step}", "zh": "{name} 停滞于 step {step}"},
    "alert_title_stalled_start": {
        "en": "{name} stalled before its first step",
        "zh": "{name} 在第一个 step 之前停滞",
    },
    "alert_title_resumed": {"en": "{name} is logging again (step {step})", "zh": "{name} 恢复写日志（step {step}）"},
    "alert_title_non_finite": {
        "en": "{name}: NaN/inf in {metric} at step {step}",
        "zh": "{name}：{metric} 在 step {step} 出现 NaN/inf",
    },
    "alert_title_signal": {"en": "{name}: {kind} (step {step})", "zh": "{name}：{kind}（step {step}）"},
    "alert_title_signal_nostep": {"en": "{name}: {kind}", "zh": "{name}：{kind}"},
    "alert_title_finished": {"en": "{name} finished (step {step})", "zh": "{name} 已完成（step {step}）"},
    "alert_title_best": {
        "en": "{name}: new best validation score (step {step})",
        "zh": "{name}：验证分数创新高（step {step}）",
    },
    "alert_resumed_detail": {
        "en": "The log grows again after the stall; the run is at {progress}.",
        "zh": "停滞之后日志又开始增长；当前进度 {progress}。",
    },
    "alert_best_detail": {
        "en": "{source}: {value} at step {step}, above the best before it ({best} at step {best_step}).",
        "zh": "{source}：step {step} 为 {value}，高于此前最佳（step {best_step} 的 {best}）。",
    },
    "alert_field": {"en": "{label}: {value}", "zh": "{label}：{value}"},
    "alert_field_experiment": {"en": "Experiment", "zh": "实验"},
    "alert_field_track": {"en": "Track", "zh": "赛道"},
    "alert_field_step": {"en": "Step", "zh": "Step"},
    "alert_field_exception": {"en": "Exception", "zh": "异常"},
    "alert_field_frame": {"en": "Last frame", "zh": "最后一帧"},
    "alert_field_severity": {"en": "Severity", "zh": "级别"},
    "alert_field_link": {"en": "Open", "zh": "打开"},
    "alert_digest_title": {"en": "{count} alerts about {root}", "zh": "{root} 的 {count} 条告警"},
    "alert_digest_intro": {
        "en": "More than {limit} alerts about this log root within {window}, sent together:",
        "zh": "{window}内该日志根目录的告警超过 {limit} 条，合并发送：",
    },
    "alert_digest_line": {"en": "- [{severity}] {title}", "zh": "- 【{severity}】{title}"},
    "alert_digest_link": {"en": "{line} — {link}", "zh": "{line} — {link}"},
    "nav_alerts": {"en": "Alerts", "zh": "告警"},
    "alerts_title": {"en": "Alerts", "zh": "告警"},
    "alerts_intro": {
        "en": "What rlmon told your team about the runs (chat, email), and what is failing. Targets are set with "
        "RLMON_ALERT_TARGETS, `rlmon watch --notify URL` or a root's rlmon.toml; they are shown by scheme and host "
        "only.",
        "zh": "rlmon 就训练运行向团队发出的通知（聊天、邮件），以及发送失败的情况。通知目标通过 RLMON_ALERT_TARGETS、"
        "`rlmon watch --notify URL` 或日志根目录的 rlmon.toml 设置；只显示其协议和主机。",
    },
    "alerts_sender_here": {
        "en": "Sent by this server (pid {pid} on {host}); last refresh {time}.",
        "zh": "由本服务器发送（{host} 上的进程 {pid}）；最近一次刷新 {time}。",
    },
    "alerts_sender_other": {
        "en": "Sent by another process on this cache folder (pid {pid} on {host}); last refresh {time}.",
        "zh": "由共用此缓存目录的另一个进程发送（{host} 上的进程 {pid}）；最近一次刷新 {time}。",
    },
    "alerts_sender_none": {
        "en": "No process sends alerts for this cache folder now: run `rlmon watch`, or start the app with "
        "RLMON_ALERT_TARGETS set.",
        "zh": "当前没有进程为此缓存目录发送告警：运行 `rlmon watch`，或设置 RLMON_ALERT_TARGETS 后启动应用。",
    },
    "alerts_not_configured": {
        "en": "This server has no alert target of its own; what another process on the same cache folder sent is "
        "listed below.",
        "zh": "本服务器没有配置告警目标；下面列出共用同一缓存目录的其他进程发送的内容。",
    },
    "alerts_targets": {"en": "Targets", "zh": "通知目标"},
    "alerts_no_targets": {"en": "No target yet.", "zh": "尚无通知目标。"},
    "alerts_failing": {"en": "Failing", "zh": "失败"},
    "alerts_all_ok": {"en": "Nothing is failing.", "zh": "没有失败。"},
    "alerts_target_failing": {
        "en": "{target}: failing since {since} ({tries} tries in a row): {error}. {waiting} message(s) kept; next try "
        "at {next}.",
        "zh": "{target}：自 {since} 起发送失败（连续 {tries} 次）：{error}。保留 {waiting} 条消息；下次尝试 {next}。",
    },
    "alerts_process_problem": {"en": "pid {pid} on {host}: {problem}", "zh": "{host} 上的进程 {pid}：{problem}"},
    "alerts_sent": {"en": "Sent ({count})", "zh": "已发送（{count}）"},
    "alerts_none_sent": {"en": "Nothing sent yet.", "zh": "尚未发送任何告警。"},
    "alerts_state_ok": {"en": "delivering", "zh": "正常"},
    "alerts_state_failing": {"en": "failing", "zh": "失败"},
    "alerts_state_new": {"en": "no message yet", "zh": "尚无消息"},
    "col_alert_target": {"en": "Target", "zh": "目标"},
    "col_alert_origin": {"en": "Set in", "zh": "配置来源"},
    "col_alert_state": {"en": "State", "zh": "状态"},
    "col_alert_last": {"en": "Last sent", "zh": "最近发送"},
    "col_alert_waiting": {"en": "Waiting", "zh": "待发送"},
    "col_alert_time": {"en": "Sent at", "zh": "发送时间"},
    "col_alert_severity": {"en": "Severity", "zh": "级别"},
    "col_alert_what": {"en": "What", "zh": "内容"},
    "col_alert_root": {"en": "Log root", "zh": "日志根目录"},
    # --- number formats: the words of rlmon.text.numbers ---
    "fmt_hours": {"en": "{value}h", "zh": "{value} 小时"},
    "fmt_duration_hm": {"en": "{h}h{m:02d}m", "zh": "{h}小时{m:02d}分"},
    "fmt_duration_m": {"en": "{m}m", "zh": "{m}分钟"},
    "fmt_duration_s": {"en": "{s}s", "zh": "{s}秒"},
    "fmt_duration_d": {"en": "{d}d{h}h", "zh": "{d}天{h}小时"},
    "fmt_steps": {"en": "{count} steps", "zh": "{count} 步"},
    "fmt_steps_one": {"en": "{count} step", "zh": "{count} 步"},
}
"""Message key -> language -> template."""


def t(key: str, lang: str, **fields: Any) -> str:
    """The message ``key`` in ``lang`` (English when the language is unknown), fields filled in.

    Raises
    ------
    KeyError
        ``key`` is not in :data:`MESSAGES` (a bug).
    """
    templates = MESSAGES[key]
    template = templates.get(lang) or templates["en"]
    return template.format(**fields) if fields else template


UNKNOWN = "–"
"""What rlmon shows for anything unknown: a number that is missing or not finite (every ``format_*`` function), a
setting an experiment lacks, a source file without steps.
"""

UNKNOWN_TRACK = "unknown model"
"""How the track of a run whose model rlmon cannot find (no model path in the config, launch command or log, and
no ``rlmon.toml`` track) begins: each such run is on a track of its own, :func:`unknown_track`."""


def unknown_track(experiment_id: str) -> str:
    """The track of a run of unknown model: its own (``unknown model · rlinsight-run``), since runs whose model
    is unknown are not runs of one model. An identity (addresses, selection, colour order), shown as
    :func:`track_name` words it."""
    return f"{UNKNOWN_TRACK} · {experiment_id}"


def is_unknown_track(track: str) -> bool:
    """Whether ``track`` is the track of a run of unknown model (:func:`unknown_track`)."""
    return track == UNKNOWN_TRACK or track.startswith(f"{UNKNOWN_TRACK} · ")


def track_name(track: str, lang: str) -> str:
    """A track as a page shows it: the track of a run of unknown model in ``lang`` (``未知模型 · rlinsight-run``),
    any other as named."""
    if is_unknown_track(track):
        return t("track_unknown", lang) + track[len(UNKNOWN_TRACK) :]
    return track


def metric_title(key: str, lang: str) -> str:
    """A readable title for a metric key: derived metrics and a few well-known keys are translated,
    ``val_score/<ds>`` becomes "<ds> validation score", any other key is shown as logged."""
    if key.startswith("val_score/"):
        return t("metric_validation", lang, source=key.removeprefix("val_score/"))
    message = "metric_" + key
    if message in MESSAGES:
        return t(message, lang)
    return key


def setting_label(key: str, label: str, lang: str) -> str:
    """The label of a setting (:class:`rlmon.runs.experiment.Setting`) in ``lang``; its own label when the catalog
    does not know the key."""
    message = "setting_" + key
    return t(message, lang) if message in MESSAGES else label


class SettingWords(Protocol):
    """What the catalog reads of a setting (:class:`rlmon.runs.experiment.Setting` has it)."""

    @property
    def display(self) -> str: ...
    @property
    def message(self) -> str | None: ...
    @property
    def fields(self) -> Any: ...


def setting_display(setting: SettingWords | None, lang: str) -> str:
    """The value of a setting as people read it in ``lang``: ``4 GPUs`` / ``4 卡``, ``off`` / ``关闭``,
    ``25 steps`` / ``每 25 步``; values that hold no word (``16K``, ``32×8``, ``vllm``) as they are;
    :data:`UNKNOWN` for a setting an experiment lacks (None). :attr:`Setting.display
    <rlmon.runs.experiment.Setting.display>` is the English.

    >>> from rlmon.runs.experiment import extract_settings
    >>> gpus = extract_settings({"trainer": {"n_gpus_per_node": 4, "nnodes": 1}})[0]
    >>> setting_display(gpus, "zh"), setting_display(gpus, "en"), gpus.display
    ('4 卡', '4 GPUs', '4 GPUs')
    """
    if setting is None:
        return UNKNOWN
    if setting.message and setting.message in MESSAGES:
        return t(setting.message, lang, **dict(setting.fields))
    return setting.display
