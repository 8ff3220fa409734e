// Status icons: ❤️ ok, 👨‍👩‍👧 team, 🏴󠁧󠁢󠁳󠁣󠁴󠁿 region.
const icons = {
  love: "❤️",
  family: "👨‍👩‍👧",
  scotland: "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
  keycap: "#️⃣",
  coder: "👩🏽‍💻",
  pride: "🏳️‍🌈",
  text: "☺︎",
  thumbs: "👍🏿",
  flag: "🇯🇵",
};
