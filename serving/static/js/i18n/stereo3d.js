// Labels of Stereo Go's 3-D view, axis bar and lens (js/boards/cylinder3d.js, axes.js,
// lens.js, stereo_views.js).

import { addStrings } from '../i18n.js';

addStrings({
  en: {
    'view3d.show': 'Show the 3-D cylinder',
    'view3d.hide': 'Hide the 3-D cylinder',
    'view3d.label': 'Stereo Go cylinder in 3-D',
    'view3d.help': 'Drag along the cylinder to turn it about its axis, across it to bring a '
      + 'pole forward; click a point facing you to play it.',
    'axes.title': 'Axes A–Q in their positions',
    'axes.help': 'Move an axis: tap it, then the position to move it to (or drag it there).',
    'axes.selected': 'Axis {axis} selected: tap the position to move it to.',
    'axes.slotTitle': 'axis {axis} at position {position}',
    'lens.title': 'Magnified board',
    'lens.help': 'Around {point}: tap the point to play.',
    'lens.close': 'Close',
  },
  zh: {
    'view3d.show': '显示立体柱面图',
    'view3d.hide': '隐藏立体柱面图',
    'view3d.label': '立体围棋柱面立体图',
    'view3d.help': '沿柱面拖动可绕轴转动，横向拖动可把一极转到前面；点击朝向你的着点落子。',
    'axes.title': '轴 A–Q 所在的位置',
    'axes.help': '移动轴：先点一个轴，再点要移到的位置（也可直接拖过去）。',
    'axes.selected': '已选中 {axis} 轴：点击要移到的位置。',
    'axes.slotTitle': '{axis} 轴，位置 {position}',
    'lens.title': '放大的棋盘',
    'lens.help': '{point} 附近：点击要下的着点。',
    'lens.close': '关闭',
  },
});
